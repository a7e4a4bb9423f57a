// Package catalog ranks the tools of a set against a request in a person's
// words ("remove the ORDERS stream"), so that a model facing a large CLI can
// find the few tools it needs without reading all their definitions.
//
// An [Index] is built once per tool set from plain [Entry] values (name,
// title, description, long help, tags, parameter names and their help,
// the aliases the application accepts for the words of the command path
// and the notes of its cheat sheets' examples); [FromToolSet] makes them
// from a served [exposure.ToolSet], taking a parameter's help from its
// description in the input schema without the notes fisk-mcp appends
// there on how to pass a value. [Index.Search] returns the names of the
// best entries with their scores; [Index.Entry] returns one entry by name,
// for a caller that describes chosen tools; [Index.Closest] names the
// tools an unknown name most likely meant.
//
// # How it ranks
//
// BM25F: each field is weighed on its own (a word of the name counts half
// again one of the summary; long help and parameter names count little),
// with the weights tuned on one part of a labelled set of requests for the
// nats CLI and measured on parts it was never tuned on (see testdata). A
// word's rarity is counted over what tools say, not over their tags or
// their flags' help: a tag most tools carry (scope:user) does not make
// "user" a common word. An alias is another name for a word of the path
// (stream rm is also stream delete, and stream also str) and counts as the
// name does, but only for what the name does not already say; one-letter
// aliases are left out. An example's note counts as long help does.
//
// The help of the flags and arguments ("Only show consumers with pending
// messages") often says what a person wants in their words, but it speaks
// of a detail of a tool, not of what the tool is for: it counts least of
// all, normalised in full for its length (a tool with forty flags says
// less in each), and it adds to the score of its own entry only.
//
// What people asked for when a tool was their answer ("who's hogging
// connections on the box" for server report connections) says what the
// tool is for in the words of those who need it, which no help says: a
// person with a problem names the problem. Such requests are known for
// nats's commands, written as the tune part of the labelled set and
// embedded by application and command path (see [Asked]); an operator
// may give more for any application (see [Requests]). They count as words
// the tool says, at the weight of its long help. A tool with none ranks
// by its own text.
//
// Text and query are read alike: words are runs of letters and digits,
// lowercased, and a word matches only itself. Two rules read the query
// further:
//
//   - related words: a word a user says reaches the words a CLI says for
//     the same thing, at a lower weight (revoke reaches remove, show
//     reaches list and info, test reaches check); a word no tool says may
//     start a link;
//   - clauses: the words after the first preposition that follows a
//     matched word say where or with what, not what, and weigh less ("add
//     a user to the APP account"); the words after so or because say why,
//     and weigh less still.
//
// Each of them, and the flags' help, was kept for what it gains on a CLI
// the ranking was not tuned on (dbctl, see testdata); the other rules the
// ranking once had (stemming, stop words, classes of equivalent words,
// compounds, a reading of questions, names and numbers, phrase and name
// bonuses, the groups' help, a vocabulary of NATS's own words) were
// removed for gaining nothing there.
//
// Equal scores are ordered by name, so the same query on the same set
// always returns the same list. A search allocates only its result.
//
// # What it does not do
//
// It does not understand language: there are no model weights, no
// embeddings and no network, and a request phrased in words neither the
// tools nor the related words know finds nothing; a word in another form
// (deletes for delete) is another word. It ranks and nothing else: it
// never decides whether a tool may be listed, described or run (the caller
// builds it from the tools it serves, so a denied or hidden tool is never
// in an index), and it produces no text for a model; what a model reads is
// built by the caller from the entries. An index never changes: a new
// tool set needs a new index.
package catalog
