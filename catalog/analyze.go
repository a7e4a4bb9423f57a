package catalog

import (
	"strings"
	"sync"
)

// An analyzer turns text into terms: words (see splitWords), minus stop
// words, stemmed, and mapped onto their class of equivalents. The same
// analyzer reads the tools and the query, so both meet on the same terms.
// Each step can be turned off, which is how the plain BM25 of the quality
// test is made.
type analyzer struct {
	stopWords  bool
	stem       bool
	vocabulary bool // equivalents and related classes
	compounds  bool // "step-down" also as "stepdown"
	camel      bool // split identifiers at case changes
}

// ranked is the full analyzer the index uses.
var ranked = analyzer{stopWords: true, stem: true, vocabulary: true, compounds: true, camel: true}

// vocab maps a stemmed word to the word naming its class, and a class to
// the classes related to it. It is built once, from equivalents and related.
type vocab struct {
	class   map[string]string // by stem
	exact   map[string]string // by the word as written, for the words marked "="
	related map[string][]relation
	actions map[string]bool // class names
	seeing  map[string]bool // class names (see seeing)
	reads   []readAction
	// quantities are class names (see quantities).
	quantities map[string]bool
	senses     map[string][]string // by class name, the class names of its verbSenses
}

type readAction struct {
	term   string
	weight float64
	number int
}

type relation struct {
	term   string
	weight float64
}

// defaultVocab is built on first use, not when the process starts: most
// starts of a server build no index before the first tools/list, and a
// client waits for that list.
var defaultVocab = sync.OnceValue(func() *vocab {
	v := buildVocab()
	return &v
})

func buildVocab() vocab {
	v := vocab{class: map[string]string{}, exact: map[string]string{}, related: map[string][]relation{}, actions: map[string]bool{}}
	var sc scratch
	norm := func(w string) string {
		var out string
		splitWords(w, false, false, false, &sc, func(b []byte, _ bool) { out = string(stem(b)) })
		return out
	}
	for _, class := range equivalents {
		name := norm(class[0])
		for _, w := range class {
			if exact, ok := strings.CutPrefix(w, "="); ok {
				v.exact[exact] = name
				continue
			}
			v.class[norm(w)] = name
		}
	}
	for _, r := range related {
		from, to := v.term(norm(r.from)), v.term(norm(r.to))
		v.related[from] = append(v.related[from], relation{to, r.weight})
	}
	for _, a := range actions {
		v.actions[v.term(norm(a))] = true
	}
	v.seeing = map[string]bool{}
	for _, a := range seeing {
		v.seeing[v.term(norm(a))] = true
	}
	v.quantities = map[string]bool{}
	for _, q := range quantities {
		v.quantities[v.term(norm(q))] = true
	}
	v.senses = map[string][]string{}
	for _, s := range verbSenses {
		w := v.term(norm(s.word))
		for _, a := range s.actions {
			v.senses[w] = append(v.senses[w], v.term(norm(a)))
		}
	}
	for _, r := range readActions {
		v.reads = append(v.reads, readAction{v.term(norm(r.word)), r.weight, r.number})
	}
	return v
}

// term is the class of a stemmed word, or the word itself.
func (v vocab) term(w string) string {
	if c, ok := v.class[w]; ok {
		return c
	}
	return w
}

// each calls emit with the terms of text in order (see word).
func (a analyzer) each(text string, identifier bool, sc *scratch, emit func(w []byte, class string)) {
	splitWords(text, identifier && a.camel, a.compounds, false, sc, func(w []byte, _ bool) {
		if w, class, ok := a.word(w); ok {
			emit(w, class)
		}
	})
}

// word analyses one lowercased word: ok is false for a stop word; class is
// the word naming its class of equivalents, or "" when it has none and the
// term is the stemmed word w (stemmed in place).
func (a analyzer) word(w []byte) (_ []byte, class string, ok bool) {
	if a.stopWords && stopWords[string(w)] {
		return nil, "", false
	}
	if a.vocabulary {
		if class, ok := defaultVocab().exact[string(w)]; ok {
			return w, class, true
		}
	}
	if a.stem {
		w = stem(w)
	}
	if a.vocabulary {
		class = defaultVocab().class[string(w)]
	}
	return w, class, true
}
