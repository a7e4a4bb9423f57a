package catalog

// equivalents are classes of words that mean the same to a command line:
// any word of a class matches any other as if it were the same word. The
// first word names the class. A class is only as wide as the words are
// interchangeable in a CLI; a word that means something near but different
// (purge empties a thing, delete removes it; show may list or describe) is
// a related class below, matched at a lower weight. Words are written as
// people type them; they are stemmed when the vocabulary is built, except
// those marked "=", which match only as written: their stem is another
// word's (settings and set, stat and state, pass and passed, ordered, in
// sequence, and orders, which users buy and name their streams after).
var equivalents = [][]string{
	{"remove", "rm", "del", "delete", "erase", "destroy", "drop", "unset", "rid", "getrid", "nuke", "deregister", "unregister", "trash"},
	{"list", "ls", "enumerate", "listing"},
	{"show", "view", "display", "print", "see", "look", "inspect", "tell"},
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
	{"subject", "subj"},
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
	{"sequential", "=ordered"},
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

// verbSenses are things a person also says as actions, with the actions
// they mean then: to stream something is to watch it live ("stream the
// logs to my terminal"), to issue one is to make it ("issue a creds
// file"), where an issue is otherwise a problem. Only the first word of a request is read so (see
// Index.parse).
var verbSenses = []struct {
	word    string
	actions []string
}{
	{"stream", []string{"watch", "tail"}},
	{"issue", []string{"generate", "add"}},
}

// quantities are the classes that say how much of a thing is asked about,
// rather than what thing.
var quantities = []string{"count", "size"}
