package realtime

import (
	"context"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestPurgeMessages checks that stored messages past 72 h are deleted and
// newer ones kept.
func TestPurgeMessages(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{}, db.Admin, db.User, keys)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, `INSERT INTO realtime.messages (topic, extension, inserted_at) VALUES
		('old', 'broadcast', now() - interval '73 hours'), ('new', 'broadcast', now() - interval '71 hours')`); err != nil {
		t.Fatal(err)
	}
	s.purgeMessages()
	var topics []string
	rows, _ := db.Admin.Query(ctx, `SELECT topic FROM realtime.messages ORDER BY topic`)
	for rows.Next() {
		var tp string
		_ = rows.Scan(&tp)
		topics = append(topics, tp)
	}
	if len(topics) != 1 || topics[0] != "new" {
		t.Errorf("left %v, want [new]", topics)
	}
}
