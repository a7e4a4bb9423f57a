// Package catalog ranks the tools of a set against a request in a person's
// words ("remove the ORDERS stream"), so that a model facing a large CLI can
// find the few tools it needs without reading all their definitions.
//
// An [Index] is built once per tool set from plain [Entry] values (name,
// title, description, long help, tags, parameter names); [FromToolSet]
// makes them from a served [exposure.ToolSet]. [Index.Search] returns the
// names of the best entries with their scores; [Index.Entry] returns one
// entry by name, for a caller that describes chosen tools; [Index.Closest]
// names the tools an unknown name most likely meant.
//
// # How it ranks
//
// BM25F: each field is weighed on its own (a word of the name counts about
// twice one of the summary; long help and parameter names count little),
// with the weights tuned on one part of a labelled set of requests for the
// nats CLI and measured on a held-out part (see testdata). Text and query go
// through the same analysis:
//
//   - words are runs of letters and digits; the tools' identifiers (names,
//     tags, parameters) are also split at case changes (listUsers), prose
//     and queries are not (JetStream stays one word); hyphenated words also
//     count joined (step-down: stepdown), and so do two adjacent words of a
//     query (back up: backup);
//   - English stop words are dropped;
//   - a small suffix stripper meets the forms of a word (deletes, deleted,
//     deleting); words it misses still reach a term they begin or that
//     begins them, at a lower weight;
//   - CLI vocabulary: classes of words that are interchangeable on a command
//     line (rm, del, delete, remove; ls, list; add, create, new; info,
//     describe, status; edit, update, change), and weaker links between
//     words that are near but not the same (show reaches list and info;
//     purge and remove reach each other a little).
//
// The query is read a little further: a word in capitals (the ORDERS
// stream) is taken for a name the user chose and matched only literally;
// words after a preposition weigh less than the thing acted on; and a query
// naming no action, whose words the tools all know ("which servers are in
// the cluster"), is also ranked as a request for a list.
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
