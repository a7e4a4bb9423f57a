package catalog

// stopWords carry no meaning in a request ("show me the streams that
// exist"): they are dropped from queries and tool text alike. "existing" is
// one because tool text uses it as filler ("Edits an existing stream"),
// while a query's "exist" asks for a list; "case" is a query's filler
// ("our dead letter case", "in case it fails") that would otherwise stem
// to cas, compare-and-set. Words a CLI
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
	don doesn didn isn aren wasn weren haven hasn hadn won wouldn shouldn
	couldn mustn shan ain
	existing case`)

// clitics are what English contracts onto a word after an apostrophe
// ("bob's", "I'd", "we'll", "don't"), all of them stop words.
var clitics = words(`s d ll re ve m t`)

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

// ceasing words before a gerund ask to undo what it does ("stop
// sharing", "quit importing").
var ceasing = words(`stop quit cease`)

// numberWords are the numbers people write in words.
var numberWords = words(`one two three four five six seven eight nine ten
	dozen hundred thousand`)

// naming words come before a name the user chose ("a bucket called
// config"), which is not looked for.
var naming = words(`called named titled`)

// prepositions open the part of a request that says where or with what,
// rather than what (see Index.Search).
var prepositions = words(`to from in on of for with by at under into onto
	off over across within inside between through per`)

// purposes open the part of a request that says why ("restrict the user
// so it can only subscribe", "revoke the key because it leaked"): like a
// preposition, they end the part that says what to do.
var purposes = words(`so because`)

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
