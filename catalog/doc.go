// Package catalog ranks the tools of a set against a request in a person's
// words ("remove the ORDERS stream"), so that a model facing a large CLI can
// find the few tools it needs without reading all their definitions.
//
// An [Index] is built once per tool set from plain [Entry] values (name,
// title, description, long help, tags, parameter names and their help,
// the aliases the application accepts for the words of the command path,
// the notes of its cheat sheets' examples and the help of the groups
// above the command); [FromToolSet] makes them
// from a served [exposure.ToolSet], taking a parameter's help from its
// description in the input schema without the notes fisk-mcp appends
// there on how to pass a value. [Index.Search] returns the
// names of the best entries with their scores; [Index.Entry] returns one
// entry by name, for a caller that describes chosen tools; [Index.Closest]
// names the tools an unknown name most likely meant.
//
// # How it ranks
//
// BM25F: each field is weighed on its own (a word of the name counts half
// again one of the summary; long help and parameter names count little),
// with the weights tuned on one part of a labelled set of requests for the
// nats CLI and measured on a held-out part it was never tuned on (see
// testdata). A word's rarity is counted over what tools say, not over
// their tags or their flags' help: a tag most tools carry (scope:user)
// does not make "user" a common word. An alias is another name for a word
// of the path (stream rm is also stream delete, and stream also str) and
// counts as the name does, but only for what the name does not already
// say (rm and delete are one word to the index); one-letter aliases are
// left out. An example's note counts as long help does. Neither was
// tuned: each takes the weights of the field it is like.
//
// The help of the flags and arguments ("Only show consumers with pending
// messages") often says what a person wants in their words, but it
// speaks of a detail of a tool, not of what the tool is for: it counts
// least of all (0.2, against 0.5 for long help), normalised in full for
// its length (a tool with forty flags says less in each), and it adds to
// the score of its own entry and to nothing else. The query is read by
// what the tools say of themselves: a word only flags' help says is read
// as a word the tools do not say (it may be the action in other words,
// and near words are still looked for) and is no near word itself, and a
// match in flags' help alone neither opens an entry to the read actions
// nor counts as a match for the variety of the result. Its weight and
// length normalisation are the only ones tuned for it.
//
// The help of the groups above a command ("Interacts with a JetStream
// based Key-Value store" above kv compact, "Health check for NATS
// servers" above server check jetstream) says what the command's own help
// takes for granted. It is read as the flags' help is, for the same
// reason: it says the same of every tool of its group, so it counts less
// still (0.1), and a word only it says changes neither the reading of
// the query nor any word's rarity (read as a word the tools say, it cost
// two tasks at recall@5 on the folds it was tuned on).
//
// What people asked for when a tool was their answer ("who's hogging
// connections on the box" for server report connections) says what the
// tool is for in the words of those who need it, which no help says: a
// person with a problem names the problem. Such requests are known for
// nats's commands, written as the tune part of the labelled set and
// embedded by application and command path (see [Asked]); they count as
// words the tool says, at the weight of its long help (chosen by
// cross-validation over the tune part). Over the held-out parts they take
// recall@5 from 84.6 % to 93.7 %; a tool of another application has none,
// and ranks by its own text.
//
// Text and query go through the same analysis:
//
//   - words are runs of letters and digits; the tools' identifiers (names,
//     tags, parameters) are also split at case changes (listUsers), prose
//     and queries are not (JetStream stays one word); hyphenated words also
//     count joined (step-down: stepdown), and so do two adjacent words of a
//     query (back up: backup, get rid: remove, make sure: check); a
//     compound the vocabulary knows then counts as one word and not as its
//     parts (a key-value bucket is not a key), one only the tools write
//     (signing-key) counts beside them;
//   - English stop words are dropped;
//   - a small suffix stripper meets the forms of a word (deletes, deleted,
//     deleting) and the British spellings (analyse, analyze); words it
//     misses still reach a term, or a word of the vocabulary, they begin
//     or that begins them, at a lower weight (responder: respond, a word
//     of reply's class; slowest: slow, which reaches latency); a word
//     whose stem is another's (settings and set, stats and state,
//     ordered and orders) is matched as written;
//   - CLI vocabulary: classes of words that are interchangeable on a command
//     line (rm, del, delete, remove; ls, list; add, create, new; info,
//     describe, status; edit, update, change; bump, increment), and weaker
//     one-way links from the words users say to the CLI's (show reaches
//     list and info; revoke reaches remove, queue stream, tenant account,
//     round trip rtt; how many reaches info and report; raise and lower,
//     said of an amount, reach edit; test reaches check; what is wrong
//     reaches health; over time reaches history; host reaches server and
//     cache kv); the words of other brokers and of devices for the same
//     notions (a topic is a subject and, in a log broker, a stream; an
//     offset a sequence, lag pending messages, a vhost an account,
//     telemetry messages, firmware a file), a monitor's (alert reaches
//     check, a cap limit, ok health), a tester's (a soak or a rate per
//     second reaches benchmark, p99 latency) and an auditor's (an ACL, a
//     grant or "who can" reach permission; rotate reaches generate).
//
// The query is read a little further, as English:
//
//   - a word in capitals (the ORDERS stream) is taken for a name the user
//     chose and matched only literally; a word after "called" or "named"
//     is not looked for;
//   - a clitic (bob's, I'd, don't) is a stop word and makes no compound
//     with the word it hangs on;
//   - words after a preposition weigh less than the thing acted on, and
//     words after so or because, which say why ("restrict the export so
//     only bob can subscribe"), less still;
//   - a number in digits ("cap it at 500") and a hyphenated name that
//     ends in one (sensor-42, gateway-3) are an amount or the name of one
//     thing, and are not looked for;
//   - an action word after a determiner is a thing (show the exports),
//     and said as a participle (a paused consumer, or in a question: is
//     the bucket sealed) it weighs less; "make" before a definite article
//     changes a thing rather than creating one (it asks to edit, at half
//     weight);
//   - a word no tool says that the vocabulary links to an action
//     (revoke, rotate) is that action said in other words: the request
//     asks to do something, not to see;
//   - to stop doing something (stop sharing a service) is to undo it: the
//     query also asks to remove, at half weight; to add a number (add 5
//     to the counter) is to increment;
//   - a thing said as the first word of a request, before a determiner
//     or a plural, is the action it also means (stream the logs, stream
//     changes to my terminal: watch, tail), unless a title says the two
//     words together (stream subjects); the thing still counts, at half
//     weight;
//   - a verb and its particle said apart are one word (put the streams
//     back: restore; take a stream off: evacuate), and so are a verb and
//     its particle said together, whatever the form of the verb (putting
//     back, tearing down, logged in);
//   - a query that names no action but to show, or asks a question
//     ("which consumers does ORDERS have", "what is the value of key
//     foo"), asks to see something: the entries a thing it names matches
//     are also ranked by the read actions (list when the thing is plural,
//     the head of a run of words deciding: object store buckets; info when
//     it is singular, or when the query asks how many or how much), and a
//     read-only entry is favoured.
//
// Then an entry ranks higher the more of its name the query says, each
// name word counting by its rarity: the command path is the best summary
// of what a tool does, and a word of it the query does not say ("bench"
// in bench pub, for "send a message") speaks for another tool. A query
// that says an alias says the word it stands for, once. Two adjacent
// words of the query said together by an entry's title, summary or notes
// (pull consumer) count a little more. Last, the result is varied: past
// the first hit, an entry matched by exactly the words of a better one
// counts a little less for each, so that five siblings matched only by
// "account" and "list" leave room for the tool that reports on accounts.
//
// Every rule is about CLIs and English, not about one tool set: none names
// a tool, and the vocabulary holds words any fisk CLI may use, plus a few
// of the NATS domain its best-known one needs (kv and key-value, nuid and
// unique id, leafnode and leaf). What is known of one application's
// commands, the requests above, is data beside the rules, used only for
// that application's tools.
//
// Equal scores are ordered by name, so the same query on the same set
// always returns the same list. A search allocates only its result.
//
// # What it does not do
//
// It does not understand language: there are no model weights, no
// embeddings and no network, and a request phrased in words neither the
// tools nor the vocabulary know finds nothing. It ranks and nothing else:
// it never decides whether a tool may be listed, described or run (the
// caller builds it from the tools it serves, so a denied or hidden tool is
// never in an index), and it produces no text for a model; what a model
// reads is built by the caller from the entries. An index never changes: a
// new tool set needs a new index.
package catalog
