package studio

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Publications on the Database screen, in postgres-meta's shapes (POST
// /publications, PATCH and DELETE /publications/{id}). Realtime streams
// supabase_realtime (sql/platform 0010): its tables and events may change,
// as on Supabase's dashboard, but it is never renamed or dropped.

// realtimePublication is the publication Basalt's realtime reads.
const realtimePublication = "supabase_realtime"

// publicationBody is a create's or an update's body. Tables are "table"
// (in public) or "schema.table"; null on create makes a publication FOR
// ALL TABLES.
type publicationBody struct {
	Name            *string   `json:"name"`
	PublishInsert   *bool     `json:"publish_insert"`
	PublishUpdate   *bool     `json:"publish_update"`
	PublishDelete   *bool     `json:"publish_delete"`
	PublishTruncate *bool     `json:"publish_truncate"`
	Tables          *[]string `json:"tables"`
}

// publish renders the publish option from the flags set, defaulting each
// missing one to its value in cur.
func (b publicationBody) publish(cur [4]bool) string {
	var ops []string
	for i, f := range []struct {
		v    *bool
		name string
	}{{b.PublishInsert, "insert"}, {b.PublishUpdate, "update"}, {b.PublishDelete, "delete"}, {b.PublishTruncate, "truncate"}} {
		on := cur[i]
		if f.v != nil {
			on = *f.v
		}
		if on {
			ops = append(ops, f.name)
		}
	}
	return strings.Join(ops, ", ")
}

func (b publicationBody) setsPublish() bool {
	return b.PublishInsert != nil || b.PublishUpdate != nil || b.PublishDelete != nil || b.PublishTruncate != nil
}

// tableList quotes tables for a publication's TABLE clause.
func tableList(tables []string) (string, error) {
	var out []string
	for _, t := range tables {
		schema, name, ok := strings.Cut(t, ".")
		if !ok {
			schema, name = "public", t
		}
		if schema == "" || name == "" {
			return "", badRequest("tables must be table or schema.table, not %q", t)
		}
		out = append(out, ident(schema, name))
	}
	return strings.Join(out, ", "), nil
}

func publicationJSON(ctx context.Context, tx pgx.Tx, id int64) ([]byte, error) {
	var out []byte
	err := tx.QueryRow(ctx, `SELECT to_json(b) FROM (`+publicationsSQL+`) b WHERE b.id = $1`, id).Scan(&out)
	if isNoRows(err) {
		return nil, notFound("Cannot find a publication with ID %d", id)
	}
	return out, err
}

// pgCreatePublication is postgres-meta's POST /publications.
func (s *Service) pgCreatePublication(w http.ResponseWriter, r *http.Request) error {
	var b publicationBody
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if b.Name == nil || strings.TrimSpace(*b.Name) == "" {
		return badRequest("name is required")
	}
	noteAudit(r.Context(), "publication "+*b.Name, nil)
	sql := "CREATE PUBLICATION " + ident(*b.Name)
	if b.Tables == nil {
		sql += " FOR ALL TABLES"
	} else if len(*b.Tables) > 0 {
		list, err := tableList(*b.Tables)
		if err != nil {
			return err
		}
		sql += " FOR TABLE " + list
	}
	sql += " WITH (publish = '" + b.publish([4]bool{true, true, true, true}) + "')"
	return s.answerTx(w, r.Context(), http.StatusCreated, func(tx pgx.Tx) ([]byte, error) {
		if err := execOne(r.Context(), tx, sql); err != nil {
			return nil, err
		}
		var id int64
		if err := tx.QueryRow(r.Context(), `SELECT oid::int8 FROM pg_publication WHERE pubname = $1`, *b.Name).Scan(&id); err != nil {
			return nil, err
		}
		return publicationJSON(r.Context(), tx, id)
	})
}

// publicationRef is a publication read by id.
type publicationRef struct {
	id        int64
	name      string
	allTables bool
	publish   [4]bool
}

func publicationByID(r *http.Request, tx pgx.Tx) (publicationRef, error) {
	var p publicationRef
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return p, notFound("Cannot find a publication with ID %s", r.PathValue("id"))
	}
	err = tx.QueryRow(r.Context(), `SELECT oid::int8, pubname, puballtables, pubinsert, pubupdate, pubdelete, pubtruncate
		FROM pg_publication WHERE oid = $1`, id).Scan(&p.id, &p.name, &p.allTables, &p.publish[0], &p.publish[1], &p.publish[2], &p.publish[3])
	if isNoRows(err) {
		return p, notFound("Cannot find a publication with ID %d", id)
	}
	if err == nil {
		noteAudit(r.Context(), "publication "+p.name, nil)
	}
	return p, err
}

// pgUpdatePublication is postgres-meta's PATCH /publications/{id}: any of
// name, the publish flags, and tables (the whole list: tables added and
// removed to match it).
func (s *Service) pgUpdatePublication(w http.ResponseWriter, r *http.Request) error {
	var b publicationBody
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	noteAudit(r.Context(), "publication "+r.PathValue("id"), nil)
	return s.answerTx(w, r.Context(), http.StatusOK, func(tx pgx.Tx) ([]byte, error) {
		p, err := publicationByID(r, tx)
		if err != nil {
			return nil, err
		}
		if b.setsPublish() {
			if err := execOne(r.Context(), tx, "ALTER PUBLICATION "+ident(p.name)+" SET (publish = '"+b.publish(p.publish)+"')"); err != nil {
				return nil, err
			}
		}
		if b.Tables != nil {
			if p.allTables {
				return nil, badRequest("Publication %s is FOR ALL TABLES: it has no list of tables to change", p.name)
			}
			if err := setPublicationTables(r.Context(), tx, p, *b.Tables); err != nil {
				return nil, err
			}
		}
		if b.Name != nil && *b.Name != p.name {
			if p.name == realtimePublication {
				return nil, forbidden("Publication %s is the one realtime streams: it keeps its name", realtimePublication)
			}
			if err := execOne(r.Context(), tx, "ALTER PUBLICATION "+ident(p.name)+" RENAME TO "+ident(*b.Name)); err != nil {
				return nil, err
			}
		}
		return publicationJSON(r.Context(), tx, p.id)
	})
}

// setPublicationTables makes p publish exactly tables.
func setPublicationTables(ctx context.Context, tx pgx.Tx, p publicationRef, tables []string) error {
	if len(tables) > 0 {
		list, err := tableList(tables)
		if err != nil {
			return err
		}
		return execOne(ctx, tx, "ALTER PUBLICATION "+ident(p.name)+" SET TABLE "+list)
	}
	// SET TABLE needs at least one table: drop the ones there are.
	rows, err := tx.Query(ctx, `SELECT n.nspname, c.relname FROM pg_publication_rel pr JOIN pg_class c ON c.oid = pr.prrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE pr.prpubid = $1`, p.id)
	if err != nil {
		return err
	}
	var have []string
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			rows.Close()
			return err
		}
		have = append(have, ident(schema, name))
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(have) == 0 {
		return err
	}
	return execOne(ctx, tx, "ALTER PUBLICATION "+ident(p.name)+" DROP TABLE "+strings.Join(have, ", "))
}

// pgDropPublication is postgres-meta's DELETE /publications/{id}, answered
// with the publication as it was.
func (s *Service) pgDropPublication(w http.ResponseWriter, r *http.Request) error {
	noteAudit(r.Context(), "publication "+r.PathValue("id"), nil)
	return s.answerTx(w, r.Context(), http.StatusOK, func(tx pgx.Tx) ([]byte, error) {
		p, err := publicationByID(r, tx)
		if err != nil {
			return nil, err
		}
		if p.name == realtimePublication {
			return nil, forbidden("Publication %s is the one realtime streams: it cannot be dropped", realtimePublication)
		}
		before, err := publicationJSON(r.Context(), tx, p.id)
		if err != nil {
			return nil, err
		}
		return before, execOne(r.Context(), tx, "DROP PUBLICATION "+ident(p.name))
	})
}
