package app_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSignup checks that one auth.users insert, as the auth service makes
// it, leaves a complete account: profile, role, role profile, wallet and a
// welcome notification, with the role taken from metadata except admin.
func TestSignup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name        string
		meta        map[string]any
		wantRole    string
		roleProfile string
	}{
		{"fan", map[string]any{"role": "fan", "display_name": "Ada", "username": "ada"}, "fan", "fan_profiles"},
		{"artist", map[string]any{"role": "artist", "display_name": "Burna", "username": "burna"}, "artist", "artist_profiles"},
		{"sponsor", map[string]any{"role": "sponsor", "display_name": "Acme", "company_name": "Acme Ltd"}, "sponsor", "sponsor_profiles"},
		{"admin in metadata falls back to fan", map[string]any{"role": "admin", "display_name": "Mallory"}, "fan", "fan_profiles"},
		{"unknown role falls back to fan", map[string]any{"role": "superuser"}, "fan", "fan_profiles"},
		{"no metadata", nil, "fan", "fan_profiles"},
	}
	for i, tc := range tests {
		id := e.signUpMeta(fmt.Sprintf("signup%d@example.com", i), tc.meta)
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]any{
				"profile_role": scalar[string](e, `SELECT role::text FROM public.public_profiles WHERE id = $1`, id),
				"user_role":    scalar[string](e, `SELECT role::text FROM public.user_roles WHERE user_id = $1`, id),
				"role_profile": scalar[int64](e, `SELECT count(*) FROM public.`+tc.roleProfile+` WHERE id = $1`, id),
				"wallet":       scalar[string](e, `SELECT balance::text || ' ' || currency FROM public.wallets WHERE id = $1 AND user_id = $1`, id),
				"welcome":      scalar[int64](e, `SELECT count(*) FROM public.notifications WHERE user_id = $1 AND type = 'welcome' AND NOT is_read`, id),
				"other_roles": scalar[int64](e, `SELECT (SELECT count(*) FROM public.artist_profiles WHERE id = $1)
					+ (SELECT count(*) FROM public.sponsor_profiles WHERE id = $1) + (SELECT count(*) FROM public.fan_profiles WHERE id = $1)`, id),
			}
			want := map[string]any{"profile_role": tc.wantRole, "user_role": tc.wantRole, "role_profile": int64(1),
				"wallet": "0.00 NGN", "welcome": int64(1), "other_roles": int64(1)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("account (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("usernames stay unique and valid", func(t *testing.T) {
		a := e.signUpMeta("dup1@example.com", map[string]any{"username": "Same Name!"})
		b := e.signUpMeta("dup2@example.com", map[string]any{"username": "samename"})
		ua := scalar[string](e, `SELECT username FROM public.public_profiles WHERE id = $1`, a)
		ub := scalar[string](e, `SELECT username FROM public.public_profiles WHERE id = $1`, b)
		if ua != "samename" || ub == ua || len(ub) < 3 {
			t.Errorf("usernames %q and %q", ua, ub)
		}
	})
	t.Run("display name falls back to the email", func(t *testing.T) {
		id := e.signUpMeta("kemi.o@example.com", map[string]any{"role": "artist"})
		if got := scalar[string](e, `SELECT name FROM public.artist_profiles WHERE id = $1`, id); got != "kemi.o" {
			t.Errorf("artist name = %q", got)
		}
	})
	t.Run("operator promotes an admin", func(t *testing.T) {
		id := e.admin()
		got := scalar[string](e, `SELECT p.role::text || '/' || r.role::text FROM public.public_profiles p
			JOIN public.user_roles r ON r.user_id = p.id WHERE p.id = $1`, id)
		if got != "admin/admin" {
			t.Errorf("roles = %q", got)
		}
	})
	t.Run("deleting a user keeps the ledger whole", func(t *testing.T) {
		id := e.signUp("sponsor")
		e.exec(`SELECT backline.fund_wallet($1, 500, 'fund-deleted')`, id)
		e.exec(`DELETE FROM auth.users WHERE id = $1`, id)
		if n := scalar[string](e, `SELECT sum(balance)::text FROM public.wallets`); n != "0.00" {
			t.Errorf("sum of wallets = %s", n)
		}
	})
}

func TestSettingsTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	want := map[string]string{
		"stream_payment_amount": "50", "min_stream_seconds": "30", "duplicate_limit_per_ip": "3",
		"duplicate_window_hours": "24", "velocity_per_hour": "25", "velocity_per_day": "200",
		"device_trust_suspicious_below": "60", "verification_fee": "60000", "verification_valid_days": "365",
		"min_cashout": "1000", "low_balance_threshold": "100", "checkout_vat_rate": "0.075",
		"checkout_processing_fee": "1000", "preview_seconds": "10", "coming_soon_enabled": "false",
		"countdown_target_date": `""`,
	}
	got := map[string]string{}
	rows, err := e.db.Admin.Query(e.ctx, `SELECT key, value::text FROM public.app_settings`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		if _, ok := want[k]; ok {
			got[k] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
}
