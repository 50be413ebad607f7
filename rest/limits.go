package rest

// Limits on the query string, far above what clients send, checked while
// parsing (before any recursion goes deeper) so that a hostile URL is a
// 400 instead of SQL that exhausts Postgres's stack or target lists.
const (
	// maxURLBytes bounds the raw path and query string. Browsers,
	// proxies and the Supabase gateway refuse URLs well below this.
	maxURLBytes = 64 << 10
	// maxDepth bounds the nesting of embeds and logic trees, and the
	// steps of a JSON path.
	maxDepth = 64
	// maxTerms bounds the items of one parameter: select items (all
	// levels), logic tree terms, order terms, column lists. Postgres
	// allows 1664 columns in a select list.
	maxTerms = 1000
	// maxContentLocation bounds the Content-Location header: past it the
	// header is left out, as HTTP clients refuse long response headers
	// (Node's limit is 16 KiB for all of them).
	maxContentLocation = 4 << 10
)

// term counts one more item of the parameter being parsed.
func (p *scanner) term() error {
	p.terms++
	if p.terms > maxTerms {
		return p.fail("more than %d items", maxTerms)
	}
	return nil
}

// nest checks the nesting depth before the parser goes one level deeper.
func (p *scanner) nest(depth int) error {
	if depth > maxDepth {
		return p.fail("more than %d levels of nesting", maxDepth)
	}
	return nil
}
