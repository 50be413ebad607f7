package rest

import (
	"sort"
	"strconv"
	"strings"
)

// buildTree resolves the embeds of items under a root resource.
func (s *Service) buildTree(c *Cache, t *Table, name, qual string, items []*selectItem) (*node, error) {
	root := &node{table: t, name: name, qual: qual, items: items}
	if err := s.resolveEmbeds(c, root); err != nil {
		return nil, err
	}
	return root, nil
}

func (s *Service) resolveEmbeds(c *Cache, n *node) error {
	for _, it := range n.items {
		if it.Kind != itemEmbed && it.Kind != itemSpread {
			continue
		}
		rel, err := c.findRelationship(n.table, it.Rel, it.Hint)
		if err != nil {
			return err
		}
		key := it.Rel
		if it.Alias != "" {
			key = it.Alias
		}
		d := n.depth + 1
		child := &node{table: rel.Foreign, name: rel.Foreign.Name, depth: d, items: it.Children,
			qual: quoteIdent(rel.Foreign.Name + "_" + strconv.Itoa(d))}
		e := &embed{item: it, rel: rel, key: key, node: child,
			alias: n.name + "_" + key + "_" + strconv.Itoa(d)}
		n.children = append(n.children, e)
		if err := s.resolveEmbeds(c, child); err != nil {
			return err
		}
	}
	return nil
}

// reserved parameters are never filters.
var reserved = map[string]bool{"select": true, "columns": true, "on_conflict": true}

// applyParams distributes filters, trees, order and paging to the nodes
// they name. isArg reports parameters that are RPC arguments (GET /rpc).
func applyParams(root *node, ps []param, isArg func(p param) bool) error {
	for _, p := range ps {
		if reserved[p.key] || (isArg != nil && isArg(p)) {
			continue
		}
		parts, err := splitKey(p.key)
		if err != nil {
			return err
		}
		last := parts[len(parts)-1]
		path := parts[:len(parts)-1]
		not := false
		if (last == "or" || last == "and") && len(path) > 0 && path[len(path)-1] == "not" {
			not, path = true, path[:len(path)-1]
		}
		target := root
		for i, seg := range path {
			e := target.child(unquote(seg))
			if e == nil {
				return errNotEmbedded(strings.Join(path[:i+1], "."))
			}
			target = e.node
		}
		switch last {
		case "order":
			o, err := parseOrder(p.value)
			if err != nil {
				return err
			}
			target.order = append(target.order, o...)
		case "limit":
			if n, ok := parseInt(p.value); ok {
				target.limit = &n
			}
		case "offset":
			if n, ok := parseInt(p.value); ok {
				target.offset = &n
			}
		case "or", "and":
			t, err := parseLogicTree(last, not, p.value)
			if err != nil {
				return err
			}
			target.trees = append(target.trees, t)
		default:
			f, err := parseFieldString("filter", last)
			if err != nil {
				return err
			}
			flt, err := parseFilterValue(f, p.value)
			if err != nil {
				return err
			}
			target.filters = append(target.filters, flt)
		}
	}
	return nil
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// hasNegativeLimit walks the tree for a limit below zero (416 PGRST103).
func hasNegativeLimit(n *node) bool {
	if n.limit != nil && *n.limit < 0 {
		return true
	}
	for _, e := range n.children {
		if hasNegativeLimit(e.node) {
			return true
		}
	}
	return false
}

func rangeErr(details string) *apiError {
	return pgrstErr(416, "PGRST103", "Requested range not satisfiable", details, nil)
}

func sortStrings(s []string) { sort.Strings(s) }
