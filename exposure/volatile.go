package exposure

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/choria-io/fisk"
)

// stabilise rewrites, in place, the free text of an introspected model:
// it cleans it for the reader (see cleanText), and rewrites what depends
// on when the binary ran rather than on what it is, so that the
// same binary describes the same tools on every replica and on every
// reload. Without it two replicas started a second apart advertise
// different tools/list results (clients behind a load balancer see the
// list change, and a reload announces a change that is none).
//
// What varies in practice is a timestamp of "now" written into help as an
// example: the nats CLI's consumer pause flags read "(eg 2026-12-01
// 21:05:57)", the time the binary started, in its local time. A fisk
// application computes such help when it builds its flags, so nothing can
// be asked of the binary to avoid it, and the text is prose, so a
// placeholder of the same shape ("(eg YYYY-MM-DD hh:mm:ss)") keeps what
// the example says (the format) and drops what varies (the value).
//
// The rule is general, not a list of nats flags: a date with a time of
// day, in the common layouts (RFC 3339, "2006-01-02 15:04:05", with or
// without fraction and zone), whose date lies within two days of now, in
// any free text of the model: help of the application, commands, flags
// and arguments, cheat sheets, and the descriptions inside the precomputed
// schemas. A date far from now is a fixed example or a historical date and
// is kept; only a time of day near the load time is taken for volatile.
// Values are deliberately left alone (a default, an enum): they are what
// the program uses, and rewriting them would change a call, not a text.
func stabilise(m *fisk.ApplicationModel, now time.Time) {
	n := normaliser{now: now}
	m.Help = n.long(m.Help)
	m.Cheat = n.long(m.Cheat)
	m.LLMExtraInfo = n.long(m.LLMExtraInfo)
	for k, v := range m.Cheats {
		m.Cheats[k] = n.long(v)
	}
	n.flags(m.FlagGroupModel)
	n.args(m.ArgGroupModel)
	if m.CmdGroupModel == nil {
		return
	}
	// The top-level commands share nothing, so each is rewritten on its
	// own goroutine: the model is stabilised on every start, before the
	// first tools/list.
	var wg sync.WaitGroup
	for _, c := range m.Commands {
		wg.Go(func() { n.commands([]*fisk.CmdModel{c}) })
	}
	wg.Wait()
}

type normaliser struct{ now time.Time }

func (n normaliser) commands(cmds []*fisk.CmdModel) {
	for _, c := range cmds {
		if c == nil {
			continue
		}
		c.Help = n.long(c.Help)
		c.HelpLong = n.long(c.HelpLong)
		c.Cheat = n.long(c.Cheat)
		n.flags(c.FlagGroupModel)
		n.args(c.ArgGroupModel)
		n.schema(c.Schema)
		n.schema(c.RestrictedSchema)
		if c.CmdGroupModel != nil {
			n.commands(c.Commands)
		}
	}
}

func (n normaliser) flags(g *fisk.FlagGroupModel) {
	if g == nil {
		return
	}
	for _, f := range g.Flags {
		if f != nil {
			f.Help = n.short(f.Help)
		}
	}
}

func (n normaliser) args(g *fisk.ArgGroupModel) {
	if g == nil {
		return
	}
	for _, a := range g.Args {
		if a != nil {
			a.Help = n.short(a.Help)
		}
	}
}

// schema rewrites every "description" string of a JSON Schema, at any
// depth, and nothing else.
func (n normaliser) schema(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "description" {
				v[k] = n.short(s)
				continue
			}
			n.schema(e)
		}
	case []any:
		for _, e := range v {
			n.schema(e)
		}
	}
}

// timestamp matches a date with a time of day: the date, "T" or a space,
// hh:mm, optional seconds and fraction, an optional offset and an optional
// zone abbreviation (as Go's time.Time.String writes).
var timestamp = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2})(:\d{2}(\.\d+)?)?( ?(Z|[+-]\d{2}:?\d{2}))?( [A-Z]{2,5}\b)?`)

// volatileWindow is how far from now a timestamp's date may lie and still
// be taken for the time the binary ran (or an example derived from it).
const volatileWindow = 48 * time.Hour

// long is text, cleaned as a long help or cheat sheet (see cleanText);
// short, as a line of help.
func (n normaliser) long(s string) string  { return cleanText(n.text(s), maxLongText) }
func (n normaliser) short(s string) string { return cleanText(n.text(s), maxShortText) }

func (n normaliser) text(s string) string {
	if !strings.ContainsRune(s, ':') || !hasDate(s) || !timestamp.MatchString(s) {
		return s
	}
	return timestamp.ReplaceAllStringFunc(s, func(match string) string {
		sub := timestamp.FindStringSubmatch(match)
		date, err := time.Parse("2006-01-02", sub[1]+"-"+sub[2]+"-"+sub[3])
		if err != nil {
			return match
		}
		if d := date.Sub(n.now.UTC().Truncate(24 * time.Hour)); d > volatileWindow || d < -volatileWindow {
			return match
		}
		return placeholder(sub)
	})
}

// hasDate reports whether s holds dddd-dd-dd, which every timestamp
// starts with: most text holds none, and this is far cheaper than the
// regular expression that would say so (the model is stabilised on every
// start, before the first tools/list).
func hasDate(s string) bool {
	for i := 4; i+6 <= len(s); i++ {
		j := strings.IndexByte(s[i:], '-')
		if j < 0 {
			return false
		}
		i += j
		if i+6 <= len(s) && digits(s[i-4:i]) && digits(s[i+1:i+3]) && s[i+3] == '-' && digits(s[i+4:i+6]) {
			return true
		}
	}
	return false
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// placeholder writes a matched timestamp's shape with letters for digits:
// "2026-12-01T21:05:57.25+01:00" becomes "YYYY-MM-DDThh:mm:ss.ff±hh:mm".
func placeholder(sub []string) string {
	var b strings.Builder
	b.WriteString("YYYY-MM-DD")
	b.WriteString(sub[4])
	b.WriteString("hh:mm")
	if sub[7] != "" {
		b.WriteString(":ss")
	}
	if sub[8] != "" {
		b.WriteString("." + strings.Repeat("f", len(sub[8])-1))
	}
	if sub[9] != "" {
		if strings.HasPrefix(sub[9], " ") {
			b.WriteByte(' ')
		}
		switch zone := sub[10]; {
		case zone == "Z":
			b.WriteString("Z")
		case strings.Contains(zone, ":"):
			b.WriteString("±hh:mm")
		default:
			b.WriteString("±hhmm")
		}
	}
	if sub[11] != "" {
		b.WriteString(" TZ")
	}
	return b.String()
}
