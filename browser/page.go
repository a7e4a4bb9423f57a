package browser

import (
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// The pages are plain server-rendered HTML; html/template escapes every
// string of a Request for its context. The inline style and script carry
// the response's CSP nonce, and nothing is loaded from anywhere else.

// outcomeText says, for a person, how an approval ended.
var outcomeText = map[Outcome]string{
	Approved:  "Approved: the command runs.",
	Denied:    "Denied: the command does not run.",
	Closed:    "Refused: the page was closed without a decision; the command does not run.",
	Reused:    "Cancelled: this approval's one-time link was used twice, so someone else may hold it; the command does not run.",
	TimedOut:  "Timed out: nobody decided in time; the command does not run.",
	Cancelled: "Cancelled: the call was cancelled; the command does not run.",
}

const style = `
body{font:16px/1.45 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}
main{max-width:46rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #ddd;border-radius:6px}
h1{font-size:1.3rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem;margin:0 0 1.2rem}
dt{font-weight:600;color:#555}dd{margin:0;overflow-wrap:anywhere}
pre{margin:0;padding:.6rem;background:#f0f0ee;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;font:14px/1.4 ui-monospace,monospace}
button{font:inherit;padding:.45rem 1.3rem;margin-right:.6rem;border-radius:4px;border:1px solid #888;cursor:pointer}
.approve,#approve{background:#1f6f3a;color:#fff;border-color:#1f6f3a}
.deny,#deny{background:#fff;color:#8a1c1c;border-color:#8a1c1c}
button:disabled{opacity:.45;cursor:default}
section{border-top:1px solid #ddd;padding-top:1rem;margin-top:1rem}
#outcome{font-weight:600}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin-bottom:.8rem}
.note{color:#555;font-size:.9rem}
`

// countdown ticks every [data-seconds] element down once a second. The
// local page resets it from its event stream.
const countdown = `
function fmtLeft(s){if(s<0)return "no limit";var m=Math.floor(s/60),r=s%60;return m+":"+(r<10?"0":"")+r;}
var clocks=document.querySelectorAll("[data-seconds]");
setInterval(function(){clocks.forEach(function(c){var s=Number(c.getAttribute("data-seconds"));if(s>0){s--;c.setAttribute("data-seconds",s);c.textContent=fmtLeft(s);}});},1000);
`

// arming enables the Approve buttons, served disabled, a second after the
// page loads (longer than a person takes to notice that what is under the
// pointer changed): a click meant for what was there before (the list before
// its refresh moved a row up, another window before this page opened
// under the pointer) approves nothing. Deny is never held back: refusing
// is always safe.
const arming = `
setTimeout(function(){document.querySelectorAll("[data-arm]").forEach(function(b){b.removeAttribute("data-arm");b.disabled=false;});},1000);
`

// localScript holds the page's event stream (whose loss, with the
// pagehide beacon, refuses the approval) and shows the outcome it
// announces.
const localScript = `
(function(){
var form=document.getElementById("decide"),left=document.getElementById("timeleft"),out=document.getElementById("outcome");
var base=location.pathname,csrf=form.elements.csrf.value,sent=false,done=false;
function end(o,text){done=true;es.close();out.setAttribute("data-outcome",o);out.textContent=text;
["approve","deny"].forEach(function(id){var b=document.getElementById(id);b.removeAttribute("data-arm");b.disabled=true;});}
var es=new EventSource(base+"/events");
es.addEventListener("left",function(e){var s=Number(e.data);left.setAttribute("data-seconds",s);left.textContent=fmtLeft(s);});
es.addEventListener("outcome",function(e){var d=JSON.parse(e.data);end(d.outcome,d.text);});
es.addEventListener("others",function(e){var n=Number(e.data),o=document.getElementById("others");o.hidden=n<1;o.firstChild.textContent=n+(n==1?" other approval is":" other approvals are")+" waiting: see them all";});
form.addEventListener("submit",function(){sent=true;});
addEventListener("pagehide",function(){if(!sent&&!done){navigator.sendBeacon(base+"/closed",new URLSearchParams({csrf:csrf}));}});
})();
`

// templates are parsed when a page is first rendered, not when the process
// starts: most starts never show one, and a client waits for the start.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("pages").Parse(`
{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}}</title><style nonce="{{.Nonce}}">{{.Style}}</style>{{end}}

{{define "fields"}}<dl>
<dt>Server</dt><dd {{.Attr "server"}}>{{.Req.Server}}</dd>
<dt>Tool</dt><dd {{.Attr "tool"}}>{{.Req.Tool}}</dd>
<dt>Command line</dt><dd><pre {{.Attr "command"}}>{{.Req.CommandLine}}</pre></dd>
<dt>Gated by</dt><dd {{.Attr "trigger"}}>{{.Req.Trigger}}</dd>
<dt>Asked by</dt><dd {{.Attr "client"}}>{{.Req.Client}}</dd>
<dt>Time left</dt><dd {{.Attr "timeleft"}} data-seconds="{{.Seconds}}">{{.Left}}</dd>
</dl>{{end}}

{{define "local"}}{{template "head" .}}</head><body><main>
<h1>Approve this command?</h1>
{{template "fields" .Item}}
<form id="decide" method="post" action="{{.Action}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button id="approve" name="decision" value="approve" disabled{{if .Pending}} data-arm{{end}}>Approve</button>
<button id="deny" name="decision" value="deny"{{if not .Pending}} disabled{{end}}>Deny</button>
</form>
<p id="outcome" role="status" data-outcome="{{.Outcome}}">{{.OutcomeText}}</p>
<p id="others" hidden><a href="/" target="_blank" rel="noopener">Other approvals are waiting: see them all</a></p>
{{if .Pending}}<p class="note">Closing this page refuses the command.</p>
<script nonce="{{.Nonce}}">{{.Script}}</script>{{end}}
</main></body></html>{{end}}

{{define "list"}}{{template "head" .}}<meta http-equiv="refresh" content="5"></head><body><main>
<h1>Pending approvals</h1>
{{if .Who}}<p id="who">Signed in as {{.Who}}.</p>{{end}}
{{with .Pages}}<p id="count">{{.Total}} waiting{{if gt .Last 1}}; page {{.Page}} of {{.Last}}, {{.Size}} a page, oldest first{{end}}.</p>{{end}}
{{range .Items}}<section id="p-{{.Req.ID}}">
{{template "fields" .}}
{{if .NotYours}}<p class="not-yours">Not yours to decide: {{.NotYours}}.</p>
{{else}}<form method="post" action="{{$.Action}}">
<input type="hidden" name="id" value="{{.Req.ID}}"><input type="hidden" name="csrf" value="{{$.CSRF}}">
<button class="approve" name="decision" value="approve" disabled data-arm>Approve</button>
<button class="deny" name="decision" value="deny">Deny</button>
</form>{{end}}</section>
{{else}}<p id="empty">Nothing is waiting for approval.</p>{{end}}
{{with .Pages}}{{if gt .Last 1}}<nav>{{if .Prev}}<a id="prev" href="{{.Prev}}">Previous page</a> {{end}}{{if .Next}}<a id="next" href="{{.Next}}">Next page</a>{{end}}</nav>{{end}}{{end}}
<form method="post" action="{{.SignOut}}"><input type="hidden" name="csrf" value="{{.CSRF}}"><button id="logout">Sign out</button></form>
<script nonce="{{.Nonce}}">{{.Script}}</script>
</main></body></html>{{end}}

{{define "home"}}{{template "head" .}}</head><body><main>
<h1>Pending approvals</h1>
{{with .Pages}}<p id="count" data-pending="{{.Total}}">{{.Total}} waiting, oldest first{{if gt .Total .Size}}; the first {{.Size}} are shown{{end}}. Each is approved on its own page.</p>{{end}}
{{range .Items}}<section id="p-{{.Req.ID}}">
{{template "fields" .}}
{{if .Opened}}<p><a class="open" href="/a/{{.Req.ID}}">Go to its page</a></p>
{{else}}<form method="post" action="/a/{{.Req.ID}}/open"><input type="hidden" name="csrf" value="{{$.CSRF}}"><button class="open">Open its page</button></form>{{end}}
</section>
{{else}}<p id="empty">Nothing is waiting for approval.</p>{{end}}
<script nonce="{{.Nonce}}">{{.Script}}</script>
</main></body></html>{{end}}

{{define "login"}}{{template "head" .}}</head><body><main>
<h1>Approvals</h1>
{{if .Message}}<p id="message">{{.Message}}</p>{{end}}
<form method="post" action="{{.Action}}">
<label for="token">Approver token</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus>
<button id="login">Sign in</button>
</form>
</main></body></html>{{end}}

{{define "signin"}}{{template "head" .}}</head><body><main>
<h1>Approvals</h1>
{{if .Message}}<p id="message">{{.Message}}</p>{{end}}
<p>Sign in with your organisation's account to see and decide the calls waiting for approval.</p>
<p><a id="signin" href="{{.Action}}">Sign in</a></p>
</main></body></html>{{end}}

{{define "message"}}{{template "head" .}}{{if .Refresh}}<meta http-equiv="refresh" content="0;url={{.Refresh}}">{{end}}</head><body><main>
<h1>{{.Title}}</h1>
<p id="outcome" role="status" data-outcome="{{.Outcome}}">{{.Message}}</p>
{{if .Back}}<p><a href="{{.Back}}">Back to the pending approvals</a></p>{{end}}
</main></body></html>{{end}}
`))
})

// view is what a page template renders.
type view struct {
	Title   string
	Nonce   string
	Style   template.CSS
	Script  template.JS
	Action  string
	SignOut string // the list's sign-out action
	CSRF    string
	Pending bool
	Outcome Outcome
	Message string
	Back    string
	Item    item
	Items   []item
	Pages   *pages // the shared list's pagination
	Who     string // the person signed in on the shared list, if it knows
	Refresh string // where a message page sends the browser on, at once
}

// pages says which part of a long list a page shows.
type pages struct {
	Total, Page, Last, Size int
	Prev, Next              string // the other pages' addresses, "" at either end
}

// OutcomeText is the sentence for v.Outcome, or nothing while pending.
func (v view) OutcomeText() string { return outcomeText[v.Outcome] }

// item is one approval as a page shows it. On the local page its fields
// carry ids (one approval per page), on the shared list classes.
type item struct {
	Req     Request
	Seconds int
	Left    string
	Opened  bool // on the local list: its page was opened
	// NotYours, on the shared list of a page that signs people in, says
	// why the person may not decide it; "" when they may.
	NotYours string
	list     bool
}

// Attr names a field element: id="name" on the local page, class="name"
// in the shared list, where one page shows many approvals.
func (it item) Attr(name string) template.HTMLAttr {
	if it.list {
		return template.HTMLAttr(`class="` + name + `"`)
	}
	return template.HTMLAttr(`id="` + name + `"`)
}

// newItem is r as a page shows it (see shownRequest), with the time left
// at now.
func newItem(r Request, now time.Time, list bool) item {
	s := secondsLeft(r.Deadline, now)
	return item{Req: shownRequest(r), Seconds: s, Left: formatLeft(s), list: list}
}

// secondsLeft is the whole seconds until deadline at now, -1 for none.
func secondsLeft(deadline, now time.Time) int {
	if deadline.IsZero() {
		return -1
	}
	return max(0, int(deadline.Sub(now).Round(time.Second)/time.Second))
}

// formatLeft renders seconds as m:ss, as the page script does.
func formatLeft(s int) string {
	if s < 0 {
		return "no limit"
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// render writes page name with status; a failure to render is logged
// (the person sees a truncated page and the approval stays as it was).
func render(w http.ResponseWriter, r *http.Request, log *slog.Logger, status int, name string, v view) {
	v.Nonce, v.Style = nonceOf(r), template.CSS(style)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := templates().ExecuteTemplate(w, name, v); err != nil {
		log.Warn("rendering the approval page", "page", name, "err", err)
	}
}

// message renders a page that only says something.
func message(w http.ResponseWriter, r *http.Request, log *slog.Logger, status int, title, text string, o Outcome, back string) {
	render(w, r, log, status, "message", view{Title: title, Message: text, Outcome: o, Back: back})
}
