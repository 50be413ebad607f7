package rest

import (
	"context"
	"net/http"
	"os"
	"testing"
)

// TestGeoJSON: with PostGIS installed, Accept: application/geo+json answers
// a FeatureCollection of ST_AsGeoJSON(row), filters and select applied, as
// PostgREST does. Machines without the PostGIS package skip it; CI installs
// the package and requires the test.
func TestGeoJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	var available bool
	if err := e.db.Admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'postgis')`).Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		if os.Getenv("CI") != "" {
			t.Fatal("PostGIS is not installed; .ci/run installs postgresql-15-postgis-3")
		}
		t.Skip("PostGIS is not installed")
	}
	if _, err := e.db.Admin.Exec(ctx, `
CREATE EXTENSION postgis;
CREATE TABLE places (id int PRIMARY KEY, name text NOT NULL, geom geometry(Point, 4326) NOT NULL);
INSERT INTO places VALUES (1, 'Lagos', 'SRID=4326;POINT(3.3792 6.5244)'), (2, 'Abuja', 'SRID=4326;POINT(7.4951 9.0579)');
GRANT SELECT ON places TO anon;`); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	geo := map[string]string{"Accept": "application/geo+json"}
	runScenarios(t, e, []scenario{
		{name: "feature collection", call: call{target: "/places?select=name,geom&order=id", headers: geo}, status: 200,
			body: `{"type":"FeatureCollection","features":[
				{"type":"Feature","geometry":{"type":"Point","coordinates":[3.3792,6.5244]},"properties":{"name":"Lagos"}},
				{"type":"Feature","geometry":{"type":"Point","coordinates":[7.4951,9.0579]},"properties":{"name":"Abuja"}}]}`,
			headers: map[string]string{"Content-Type": "application/geo+json; charset=utf-8"}},
		{name: "filtered to nothing", call: call{target: "/places?id=eq.99", headers: geo}, status: 200,
			body: `{"type":"FeatureCollection","features":[]}`},
		{name: "plain JSON still", call: call{method: http.MethodGet, target: "/places?select=id&order=id"}, status: 200,
			body: `[{"id":1},{"id":2}]`},
	})
}
