package catalog

// Entry is what the index knows of one tool: plain text, so that the index
// depends on nothing of the tool model's interfaces. FromToolSet makes
// entries from a served tool set.
type Entry struct {
	// Name is the tool's flat name (auth_user_add); Search returns it.
	Name string `json:"name"`
	// Title is the human title, for a command its path with spaces.
	Title string `json:"title,omitempty"`
	// Description is the one-line summary.
	Description string `json:"description,omitempty"`
	// Detail is any longer help beyond the summary.
	Detail string `json:"detail,omitempty"`
	// Tags are the tool's tags (impact:ro, scope:user).
	Tags []string `json:"tags,omitempty"`
	// Params are the names of the tool's flags and arguments.
	Params []string `json:"params,omitempty"`
	// ParamHelp is the help of the flags and arguments that have any, in
	// the order of Params, each distinct text once: what the application
	// says a parameter does ("Only show consumers with pending
	// messages"), without the notes fisk-mcp adds on how to pass a value.
	// It ranks low: a flag's help speaks of a detail of the tool, not of
	// what the tool is for.
	ParamHelp []string `json:"param_help,omitempty"`
	// Aliases are the other words the application accepts for words of
	// the title, by the word they stand for (rm: delete, del; stream:
	// str). They rank as the name does.
	Aliases map[string][]string `json:"aliases,omitempty"`
	// Examples are what the application's cheat sheets say above the
	// command lines that run the tool ("Purge messages from streams"),
	// each once. They rank as the long help does; the command lines
	// themselves repeat the name and example values, and are left out.
	Examples []string `json:"examples,omitempty"`
	// Asked are requests people have made when this tool was their
	// answer ("who's using the most bandwidth"), in their words rather
	// than the application's: what a person says for the tool that its
	// text does not. They count as words the tool says, at the weight
	// of its long help. FromToolSet takes them from what is known of the
	// application (see Asked); they are not part of a snapshot of the
	// tool's own text.
	Asked []string `json:"-"`
	// ReadOnly and Gated are carried for the caller that presents a hit
	// (which executor runs it, whether a person is asked). Neither
	// changes the ranking.
	ReadOnly bool `json:"read_only,omitempty"`
	Gated    bool `json:"gated,omitempty"`
}

// Hit is one ranked result: an entry's name and its score. Scores compare
// only within one search.
type Hit struct {
	Name  string
	Score float64
}
