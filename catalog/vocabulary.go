package catalog

// equivalents are classes of words that mean the same to a command line:
// any word of a class matches any other as if it were the same word. The
// first word names the class. A class is only as wide as the words are
// interchangeable in a CLI; a word that means something near but different
// (purge empties a thing, delete removes it; show may list or describe) is
// a related class below, matched at a lower weight. Words are written as
// people type them; they are stemmed when the vocabulary is built, except
// those marked "=", which match only as written: their stem is another
// word's (settings and set, stat and state, pass and passed).
var equivalents = [][]string{
	{"remove", "rm", "del", "delete", "erase", "destroy", "drop", "unset", "rid", "getrid", "nuke", "deregister", "unregister", "trash"},
	{"list", "ls", "enumerate", "listing"},
	{"show", "view", "display", "print", "see", "look", "inspect"},
	{"info", "nfo", "information", "describe", "description", "detail", "details", "status"},
	{"add", "create", "new", "make", "mk", "setup", "provision", "register", "define", "declare", "spinup"},
	{"edit", "update", "change", "modify", "alter", "adjust", "tweak", "reconfigure"},
	{"copy", "cp", "duplicate", "clone"},
	{"move", "mv", "relocate", "migrate", "migration"},
	{"get", "fetch", "retrieve", "download", "read"},
	{"put", "upload", "write"},
	{"publish", "pub", "send", "emit", "post"},
	{"subscribe", "sub", "subscription", "listen"},
	{"request", "req", "ask"},
	{"reply", "respond", "response", "answer"},
	{"connection", "conn", "conns", "connz", "connect", "connected"},
	{"jetstream", "js", "jsz"},
	{"statistics", "=stats", "=stat", "statsz", "metrics"},
	{"config", "configuration", "conf", "cfg", "=settings", "=setting"},
	{"message", "msg", "msgs"},
	{"credential", "cred", "creds"},
	{"server", "srv", "servers", "broker"},
	{"account", "acct", "accountz", "tenant"},
	{"generate", "gen"},
	{"password", "passwd", "=pass"},
	{"purge", "wipe", "clear", "flush", "truncate"},
	{"validate", "verify"},
	{"watch", "monitor", "observe", "realtime"},
	{"restore", "recover"},
	{"encrypt", "enc"},
	{"decrypt", "dec", "unseal"},
	{"error", "err", "errors"},
	{"user", "usr"},
	{"subject", "subj", "topic"},
	{"benchmark", "bench", "perf", "performance", "loadtest", "stress", "throughput"},
	{"latency", "lat"},
	{"memory", "mem", "ram"},
	{"replica", "replicas", "replication", "replicated"},
	{"leafnode", "leaf", "leafz"},
	{"gateway", "gateways", "gatewayz", "gwy"},
	{"route", "routes", "routez"},
	{"object", "obj", "blob"},
	{"directory", "dir", "folder"},
	{"context", "ctx"},
	{"sequence", "seq"},
	{"acknowledge", "ack", "acknowledgement"},
	{"expire", "expiry", "expiration", "expires"},
	{"leader", "leadership", "primary", "master"},
	{"elect", "election", "stepdown", "failover"},
	{"health", "healthy", "healthz", "unhealthy"},
	{"kv", "keyvalue"},
	{"operator", "op"},
	{"variable", "variables", "var", "varz"},
	{"select", "switch", "choose", "pick"},
	{"pause", "suspend"},
	{"resume", "unpause", "continue"},
	{"save", "persist"},
	{"balance", "rebalance", "spread", "distribute", "redistribute", "even", "evenly", "shuffle"},
	{"gap", "gaps", "missing", "hole"},
	{"revert", "rollback", "undo"},
	{"individual", "single", "particular", "specific"},
	{"evacuate", "drain"},
	{"report", "overview", "summary", "summarize"},
	{"tail", "follow"},
	{"count", "many", "number", "total", "amount"},
	{"size", "big", "much", "large", "bytes"},
	{"history", "past", "historical"},
	{"seal", "lock", "readonly", "immutable", "freeze"},
	{"increment", "incr", "bump", "increase", "plus"},
	{"decrement", "decr", "decrease", "subtract", "minus"},
	{"nuid", "uuid", "guid", "uniqueid"},
	{"previous", "prev", "goback"},
	{"reload", "restart", "refresh"},
	{"set", "assign"},
	{"backup", "snapshot", "tarball"},
	{"compact", "vacuum", "shrink", "defrag", "defragment"},
	{"service", "microservice"},
	{"limit", "quota", "allowance"},
	{"retention", "retain"},
	{"redelivery", "redeliver"},
	{"compatible", "compatibility"},
	{"kick", "disconnect", "evict"},
	{"entire", "whole"},
	{"last", "latest", "newest", "final"},
	{"delivery", "deliver"},
	{"asynchronous", "async"},
	{"synchronous", "sync"},
	{"run", "execute", "launch"},
	{"profile", "pprof", "profiling"},
	{"certificate", "cert", "certs"},
	{"graph", "chart", "plot", "visualize", "visualise"},
	{"unselect", "deselect"},
	{"cancel", "abort"},
	{"map", "mapping", "transform", "transformation"},
	{"publish", "produce", "fire"},
}

// actions are the classes that say what to do to a thing; a query with
// none of them may be asking for a list (see Index.Search).
var actions = []string{
	"remove", "list", "show", "info", "add", "edit", "copy", "move", "get",
	"put", "publish", "subscribe", "request", "reply", "purge", "validate",
	"watch", "restore", "encrypt", "decrypt", "generate", "select", "pause",
	"resume", "elect", "check", "backup", "seal", "kick", "ping", "reload",
	"benchmark", "trace", "find", "search", "report", "import", "export",
	"reset", "revert", "compact", "evacuate", "balance", "sign", "verify",
	"increment", "decrement", "lookup", "gather", "analyze", "push", "query",
	"save", "tail", "set",
}

// seeing are the actions that ask to see something without saying how
// ("show the exports of an account"): a query whose only action is one of
// them is ranked as a request to see (see readActions), so that the
// number of the thing named chooses between a list and a description.
var seeing = []string{"show"}

// readActions are what a request to see something, rather than to do
// something, is also ranked by, with their relative weights: "which
// servers are in the cluster" asks for a list, "what is the value of key
// foo" for a get.
var readActions = []struct {
	word   string
	weight float64
	number int // the number of the thing named it suits (see Index.rankRead)
}{
	{"list", 1, 2},
	{"info", 0.7, 1},
}

// quantities are the classes that say how much of a thing is asked about,
// rather than what thing.
var quantities = []string{"count", "size"}

// related links classes that are near but not the same, with the weight a
// match through the link counts for (a match of the word itself counts 1).
// Links are one-way: from the word in the query to the word in the tool.
var related = []struct {
	from, to string
	weight   float64
}{
	{"show", "list", 0.5},
	{"exist", "list", 0.6},
	{"show", "info", 0.5},
	{"list", "show", 0.3},
	{"info", "show", 0.3},
	{"info", "report", 0.3},
	{"statistics", "report", 0.5},
	{"statistics", "info", 0.3},
	{"purge", "remove", 0.4},
	{"health", "check", 0.5},
	{"validate", "check", 0.5},
	{"add", "put", 0.3},
	{"put", "add", 0.3},
	{"elect", "leader", 0.5},
	{"leader", "elect", 0.5},
	{"latency", "rtt", 0.5},
	{"watch", "events", 0.3},
	{"restore", "backup", 0.3},
	{"save", "put", 0.6},
	{"start", "resume", 0.5},
	{"tail", "subscribe", 0.6},
	{"tail", "watch", 0.6},
	{"set", "put", 0.5},
	{"set", "edit", 0.4},
	{"save", "add", 0.5},
	{"count", "info", 0.5},
	{"count", "state", 0.5},
	{"count", "report", 0.5},
	{"size", "info", 0.5},
	{"size", "state", 0.5},
	{"size", "report", 0.5},
	{"metadata", "info", 0.6},
	{"stop", "pause", 0.5},
	{"mean", "lookup", 0.5},
	{"history", "revision", 0.5},
	{"roundtrip", "rtt", 1},
	{"revoke", "remove", 0.8},
	{"lifetime", "age", 0.8},
	{"bandwidth", "statistics", 0.5},
	{"federation", "gateway", 0.6},
	{"spoke", "leafnode", 0.6},
	{"edge", "leafnode", 0.6},
	{"hub", "leafnode", 0.4},
	{"region", "cluster", 0.6},
	{"zone", "cluster", 0.4},
	{"placement", "cluster", 0.5},
	{"follower", "replica", 0.8},
	{"follower", "peer", 0.6},
	{"consensus", "raft", 0.8},
	{"vote", "elect", 0.6},
	{"outage", "health", 0.5},
	{"offline", "health", 0.5},
	{"unreachable", "connection", 0.5},
	{"unreachable", "health", 0.5},
	{"alive", "health", 0.8},
	{"liveness", "health", 0.8},
	{"readiness", "health", 0.8},
	{"probe", "check", 0.8},
	{"upgrade", "downgrade", 0.5},
	{"deprecated", "incompatible", 0.5},
	{"dashboard", "graph", 0.5},
	{"dashboard", "report", 0.4},
	{"sparkline", "graph", 0.8},
	{"unacked", "acknowledge", 0.8},
	{"unacknowledged", "acknowledge", 0.8},
	{"backlog", "pending", 0.8},
	{"inflight", "pending", 0.6},
	{"outstanding", "pending", 0.6},
	{"worker", "consumer", 0.5},
	{"sticky", "pin", 0.8},
	{"wildcard", "subject", 0.5},
	{"discovery", "ping", 0.5},
	{"discover", "ping", 0.5},
	{"rpc", "request", 0.8},
	{"call", "request", 0.6},
	{"invoke", "request", 0.6},
	{"diagnose", "check", 0.5},
	{"troubleshoot", "check", 0.4},
	{"troubleshoot", "gather", 0.4},
	{"collect", "gather", 0.8},
	{"permission", "allow", 0.6},
	{"permission", "deny", 0.6},
	{"permit", "allow", 0.8},
	{"login", "credential", 0.5},
	{"secret", "credential", 0.4},
	{"apply", "reload", 0.4},
	{"instance", "server", 0.6},
	{"interest", "subscription", 0.6},
	{"goroutine", "profile", 0.5},
	{"explain", "lookup", 0.5},
	{"hop", "trace", 0.6},
	{"howfast", "benchmark", 0.6},
	{"howquickly", "benchmark", 0.6},
	{"putback", "restore", 1},
	{"bringback", "restore", 1},
	{"bringin", "import", 1},
	{"takeoff", "evacuate", 0.8},
	{"takeoff", "remove", 0.6},
	{"switchback", "previous", 1},
	{"cleanup", "purge", 0.6},
	{"cleanup", "remove", 0.6},
	{"kickout", "kick", 1},
	{"throwout", "kick", 0.8},
	{"wipeout", "purge", 1},
	{"throwaway", "remove", 0.8},
	{"shutdown", "stop", 1},
	{"traffic", "activity", 0.6},
	{"busy", "activity", 0.5},
	{"alert", "advisory", 0.6},
	{"alert", "event", 0.5},
	{"examine", "analyze", 0.6},
	{"assess", "analyze", 0.6},
	{"evaluate", "analyze", 0.6},
	{"bundle", "archive", 0.8},
	{"zip", "archive", 0.6},
	{"resource", "asset", 0.8},
	{"example", "demo", 0.6},
	{"sample", "demo", 0.6},
	{"dummy", "demo", 0.6},
	{"mock", "demo", 0.6},
	{"environment", "deployment", 0.5},
	{"spot", "detect", 0.6},
	{"identify", "detect", 0.5},
	{"permanent", "durable", 0.7},
	{"temporary", "ephemeral", 0.8},
	{"transient", "ephemeral", 0.8},
	{"recent", "last", 0.8},
	{"version", "revision", 0.5},
	{"heap", "profile", 0.5},
	{"notify", "watch", 0.8},
	{"notification", "watch", 0.8},
	{"stop", "cancel", 0.5},
	{"traffic", "statistics", 0.6},
	{"certificate", "tls", 0.8},
	{"rewrite", "map", 0.8},
	{"repair", "rescue", 0.8},
	{"fix", "rescue", 0.6},
	{"quorum", "raft", 0.5},
	{"masked", "obfuscated", 0.8},
	{"anonymized", "obfuscated", 0.8},
	{"startover", "reset", 1},
	{"echo", "reply", 0.6},
	{"makesure", "check", 0.8},
	{"makesure", "validate", 0.6},
	{"ensure", "check", 0.6},
	{"ensure", "validate", 0.5},
	{"reach", "connection", 0.6},
	{"compareandset", "update", 0.8},
	{"cas", "update", 0.8},
	{"keypair", "key", 1},
	{"keypair", "nkey", 0.6},
	{"recover", "rescue", 0.6},
	{"lint", "validate", 0.8},
	{"speed", "benchmark", 0.5},
	{"rewind", "reset", 0.8},
	{"locate", "find", 0.8},
	{"filter", "find", 0.5},
	{"reachable", "ping", 0.6},
	{"record", "message", 0.5},
	{"channel", "subject", 0.7},
	{"supercluster", "gateway", 0.6},
	{"endpoint", "service", 0.5},
	{"member", "peer", 0.8},
	{"membership", "peer", 0.8},
	{"rename", "edit", 0.5},
	{"share", "export", 0.8},
	{"offer", "export", 0.6},
	{"debug", "gather", 0.4},
	{"diagnostic", "gather", 0.5},
	{"support", "gather", 0.3},
	{"restrict", "edit", 0.6},
	{"usage", "info", 0.4},
	{"usage", "report", 0.4},
	{"most", "report", 0.5},
	{"busiest", "report", 0.5},
	{"load", "import", 0.6},
	{"receive", "subscribe", 0.6},
	{"dump", "show", 0.8},
	{"forget", "remove", 0.6},
	{"discard", "remove", 0.8},
	{"teardown", "remove", 0.8},
	{"empty", "purge", 0.8},
	{"queue", "stream", 0.7},
	{"reader", "consumer", 0.8},
	{"subscriber", "consumer", 0.6},
	{"client", "connection", 0.7},
	{"live", "watch", 0.6},
	{"find", "search", 0.6},
	{"search", "find", 0.6},
	{"version", "info", 0.5},
	{"uptime", "info", 0.5},
	{"node", "server", 0.7},
	{"delay", "latency", 0.8},
	{"lag", "latency", 0.5},
}

// stopWords carry no meaning in a request ("show me the streams that
// exist"): they are dropped from queries and tool text alike. "existing" is
// one because tool text uses it as filler ("Edits an existing stream"),
// while a query's "exist" asks for a list. Words a CLI
// uses as a verb or a flag (all, get, set, new, no, last, first) are not
// stop words.
var stopWords = words(`a an the of to in on for with by from at as into onto
	out up about via and or but nor if then than so too very just also only
	is are was were be been being am do does did doing done have has had
	i me my mine myself you your yours we us our ours they them their it its
	he him his she her this that these those there here what which who whom
	whose when where why how please can could would should will shall may
	might must some any each every such own same other others use using used
	want wanted like need needs let lets s t d ll re ve m
	existing`)

// questionWords open a question about what there is ("which consumers does
// ORDERS have"), unless one of requestWords follows ("how do I delete a
// stream"): a question is answered by a tool that reads.
var (
	questionWords = words(`what whats which who whom whose where when why how
		is are am was were does did has have`)
	requestWords = words(`do can could should would shall to`)
)

// uncountable are words that look plural and name no set of things ("the
// stats of a consumer" asks for one report, not a list).
var uncountable = words(`stats statistics metrics analytics settings details
	news series`)

// determiners come before a thing: an action word after one is a thing
// ("the exports of an account", "this backup").
var determiners = words(`a an the my your our their its this that these those
	all every each some any no`)

// particles complete a verb said before them ("put the streams back",
// "take a stream off a server"); the two words are looked up as one.
var particles = words(`back off in out up down over away`)

// definite determiners name a thing that exists: after one, a weak
// create ("make the operator the default") does not create, it changes
// (see Index.parse).
var (
	definite    = words(`the my your our their its this that these those no`)
	weakCreates = words(`make`)
)

// naming words come before a name the user chose ("a bucket called
// config"), which is not looked for.
var naming = words(`called named titled`)

// prepositions open the part of a request that says where or with what,
// rather than what (see Index.Search).
var prepositions = words(`to from in on of for with by at under into onto
	off over across within inside between through per`)

func words(s string) map[string]bool {
	m := map[string]bool{}
	w := []byte(nil)
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\n' || s[i] == '\t' {
			if len(w) > 0 {
				m[string(w)] = true
				w = w[:0]
			}
			continue
		}
		w = append(w, s[i])
	}
	return m
}
