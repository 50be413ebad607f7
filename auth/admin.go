package auth

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// adminUserParams is the body of POST /admin/users and PUT /admin/users/{id}.
// Password is a pointer so that an absent field (keep the password) differs
// from "" (also keep it, as the reference treats an empty password), and
// PasswordHash lets migrations import bcrypt hashes from another system.
type adminUserParams struct {
	ID           string         `json:"id"`
	Aud          string         `json:"aud"`
	Role         string         `json:"role"`
	Email        string         `json:"email"`
	Phone        string         `json:"phone"`
	Password     *string        `json:"password"`
	PasswordHash string         `json:"password_hash"`
	EmailConfirm bool           `json:"email_confirm"`
	PhoneConfirm bool           `json:"phone_confirm"`
	UserMetadata map[string]any `json:"user_metadata"`
	AppMetadata  map[string]any `json:"app_metadata"`
	BanDuration  string         `json:"ban_duration"`
}

// banUntil parses ban_duration: a Go duration or "none" (unban). The
// second result says whether the field was given at all, so an update
// without it leaves an existing ban alone. Negative durations are refused
// like malformed ones: a ban in the past would be a silent unban.
func (s *Service) banUntil(d string) (*time.Time, bool, error) {
	if d == "" {
		return nil, false, nil
	}
	if d == "none" {
		return nil, true, nil
	}
	dur, err := time.ParseDuration(d)
	if err != nil || dur < 0 {
		return nil, false, badRequest("validation_failed", "invalid format for ban duration: %s", d)
	}
	t := s.now().Add(dur)
	return &t, true, nil
}

// adminCreateUser handles POST /admin/users (contract E30).
func (s *Service) adminCreateUser(w http.ResponseWriter, r *http.Request) error {
	var p adminUserParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Email == "" && p.Phone == "" {
		return badRequest("validation_failed", "Cannot create a user without either an email or phone")
	}
	// Admin-created users skip confirmation only when asked (email_confirm,
	// phone_confirm), and get a random password when none is given, so
	// they can only sign in through a link or a password reset.
	np := newUserParams{ID: p.ID, Aud: p.Aud, Role: p.Role, UserMetadata: p.UserMetadata, AppMetadata: p.AppMetadata,
		EmailConfirmed: p.EmailConfirm, PhoneConfirmed: p.PhoneConfirm}
	// A caller-chosen id lets an import keep the ids other systems already
	// refer to; it must still be a UUID because auth.users.id is one.
	if p.ID != "" && !isUUID(p.ID) {
		return badRequest("validation_failed", "ID must conform to the uuid v4 format")
	}
	if p.Email != "" {
		email, verr := validateEmail(p.Email)
		if verr != nil {
			return verr
		}
		np.Email = email
	}
	if p.Phone != "" {
		phone, verr := validatePhone(p.Phone)
		if verr != nil {
			return verr
		}
		np.Phone = phone
	}
	// Both at once would leave it ambiguous which one the user signs in
	// with; the reference refuses the combination.
	if p.Password != nil && *p.Password != "" && p.PasswordHash != "" {
		return badRequest("validation_failed", "Only a password or a password hash should be provided")
	}
	switch {
	// Imported bcrypt hashes are kept as they are (migrations from
	// another system).
	case p.PasswordHash != "":
		if !strings.HasPrefix(p.PasswordHash, "$2") {
			return badRequest("validation_failed", "Invalid password hash format")
		}
		np.PasswordHash = p.PasswordHash
	default:
		pw := randomPassword()
		if p.Password != nil && *p.Password != "" {
			pw = *p.Password
			if len(pw) > maxPasswordBytes {
				return tooLongPassword()
			}
			if err := s.checkPassword(pw); err != nil {
				return err
			}
		}
		hash, err := s.hashPassword(pw)
		if err != nil {
			return err
		}
		np.PasswordHash = hash
	}
	ban, _, err := s.banUntil(p.BanDuration)
	if err != nil {
		return err
	}
	np.BannedUntil = ban
	ctx := r.Context()
	var u *user
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// The unique indexes would refuse a duplicate too, but only with a
		// constraint error; checking first gives the reference's codes.
		if np.Email != "" {
			if _, err := userByEmail(ctx, tx, np.Email); err == nil {
				return unprocessable("email_exists", "A user with this email address has already been registered")
			}
		}
		if np.Phone != "" {
			if _, err := userByPhone(ctx, tx, np.Phone); err == nil {
				return unprocessable("phone_exists", "A user with this phone number has already been registered")
			}
		}
		var err error
		if u, err = s.createUser(ctx, tx, np); err != nil {
			return err
		}
		// The reference mirrors a confirmed address into the metadata
		// (email_verified), which clients read to skip "check your mail".
		if p.EmailConfirm {
			u.UserMetadata = mergeMetadata(u.UserMetadata, map[string]any{"email_verified": true})
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET raw_user_meta_data = $2 WHERE id = $1`, u.ID, u.UserMetadata); err != nil {
				return fmt.Errorf("mark email verified: %w", err)
			}
		}
		u, err = userByID(ctx, tx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// pathUser loads the user named by the {id} path segment. A malformed id is
// a 404 like an unknown one (with the reference's validation_failed code),
// never a 500 from Postgres failing to cast it.
func (s *Service) pathUser(r *http.Request, db batcher) (*user, error) {
	id := r.PathValue("id")
	if !isUUID(id) {
		return nil, notFound("validation_failed", "user_id must be an UUID")
	}
	u, err := userByID(r.Context(), db, id)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, notFound("user_not_found", "User not found")
	}
	return u, err
}

// adminGetUser handles GET /admin/users/{id} (contract E31).
func (s *Service) adminGetUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r, s.db)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// adminUpdateUser handles PUT /admin/users/{id} (contract E32).
func (s *Service) adminUpdateUser(w http.ResponseWriter, r *http.Request) error {
	var p adminUserParams
	if err := decode(r, &p); err != nil {
		return err
	}
	ctx := r.Context()
	var u *user
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if u, err = s.pathUser(r, tx); err != nil {
			return err
		}
		now := s.now()
		exec := func(q string, args ...any) error {
			if _, err := tx.Exec(ctx, q, append([]any{u.ID}, args...)...); err != nil {
				return fmt.Errorf("admin update of %s: %w", u.ID, err)
			}
			return nil
		}
		// Each field is applied only when present; absent fields keep their
		// values.
		if p.Role != "" {
			if err := exec(`UPDATE auth.users SET role = $2 WHERE id = $1`, p.Role); err != nil {
				return err
			}
		}
		// An admin changes email and phone directly, without the
		// confirmation mails a user's own change needs: the service role
		// is trusted to know the address is right.
		if p.Email != "" {
			email, verr := validateEmail(p.Email)
			if verr != nil {
				return verr
			}
			if email != u.Email {
				if err := s.applyEmail(ctx, tx, u, email, p.EmailConfirm); err != nil {
					return err
				}
			}
		}
		if p.Phone != "" {
			phone, verr := validatePhone(p.Phone)
			if verr != nil {
				return verr
			}
			if phone != u.Phone {
				if err := s.applyPhone(ctx, tx, u, phone); err != nil {
					return err
				}
			}
		}
		if p.EmailConfirm && u.EmailConfirmedAt == nil && u.Email != "" {
			if err := s.confirmEmail(ctx, tx, u); err != nil {
				return err
			}
		}
		if p.PhoneConfirm && u.PhoneConfirmedAt == nil && u.Phone != "" {
			if err := s.confirmPhone(ctx, tx, u); err != nil {
				return err
			}
		}
		if p.Password != nil && *p.Password != "" {
			if len(*p.Password) > maxPasswordBytes {
				return tooLongPassword()
			}
			if err := s.checkPassword(*p.Password); err != nil {
				return err
			}
			hash, err := s.hashPassword(*p.Password)
			if err != nil {
				return err
			}
			if err := exec(`UPDATE auth.users SET encrypted_password = $2 WHERE id = $1`, hash); err != nil {
				return err
			}
			// The reference signs the user out everywhere on an admin reset.
			if err := exec(`DELETE FROM auth.sessions WHERE user_id = $1`); err != nil {
				return err
			}
		} else if p.PasswordHash != "" {
			// An imported hash is taken as is: it was checked where it came
			// from, and its cost is whatever that system used.
			if err := exec(`UPDATE auth.users SET encrypted_password = $2 WHERE id = $1`, p.PasswordHash); err != nil {
				return err
			}
		}
		// Metadata merges (null deletes a key) into the row as it is now:
		// the email or phone steps above may have rewritten it.
		if p.UserMetadata != nil {
			fresh, err := userByID(ctx, tx, u.ID)
			if err != nil {
				return err
			}
			if err := exec(`UPDATE auth.users SET raw_user_meta_data = $2 WHERE id = $1`, mergeMetadata(fresh.UserMetadata, p.UserMetadata)); err != nil {
				return err
			}
		}
		if p.AppMetadata != nil {
			fresh, err := userByID(ctx, tx, u.ID)
			if err != nil {
				return err
			}
			if err := exec(`UPDATE auth.users SET raw_app_meta_data = $2 WHERE id = $1`, mergeMetadata(fresh.AppMetadata, p.AppMetadata)); err != nil {
				return err
			}
		}
		if ban, set, err := s.banUntil(p.BanDuration); err != nil {
			return err
		} else if set {
			if err := exec(`UPDATE auth.users SET banned_until = $2 WHERE id = $1`, ban); err != nil {
				return err
			}
		}
		if err := exec(`UPDATE auth.users SET updated_at = $2 WHERE id = $1`, now); err != nil {
			return err
		}
		if err := s.audit(ctx, tx, r, u, "user_modified", nil); err != nil {
			return err
		}
		u, err = userByID(ctx, tx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// adminDeleteParams is the body of DELETE /admin/users/{id}; it may be
// empty (a hard delete).
type adminDeleteParams struct {
	ShouldSoftDelete bool `json:"should_soft_delete"`
}

// adminDeleteUser handles DELETE /admin/users/{id}: hard delete cascades
// identities, sessions and factors; soft delete anonymises the row.
func (s *Service) adminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	var p adminDeleteParams
	if err := decode(r, &p); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := s.pathUser(r, tx)
		if err != nil {
			return err
		}
		// The audit entry is written first, while the user's name is still
		// on the row: a soft delete blanks it.
		if err := s.audit(ctx, tx, r, u, "user_deleted", nil); err != nil {
			return err
		}
		// Hard delete cascades identities, sessions, factors and tokens. Soft
		// delete keeps the row (so foreign keys from app tables hold) but frees
		// the email and phone and removes every way to sign in.
		if !p.ShouldSoftDelete {
			_, err = tx.Exec(ctx, `DELETE FROM auth.users WHERE id = $1`, u.ID)
			return err
		}
		now := s.now()
		for _, q := range []string{
			`DELETE FROM auth.sessions WHERE user_id = $1`,
			`DELETE FROM auth.mfa_factors WHERE user_id = $1`,
			`DELETE FROM auth.one_time_tokens WHERE user_id = $1`,
			`UPDATE auth.identities SET provider_id = 'deleted:' || provider_id || ':' || id::text,
				identity_data = '{}' WHERE user_id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, u.ID); err != nil {
				return fmt.Errorf("soft delete %s: %w", u.ID, err)
			}
		}
		_, err = tx.Exec(ctx, `UPDATE auth.users SET email = NULL, phone = NULL, encrypted_password = '',
			confirmation_token = '', recovery_token = '', email_change = '', email_change_token_new = '',
			email_change_token_current = '', phone_change = '', phone_change_token = '', reauthentication_token = '',
			raw_user_meta_data = '{}', raw_app_meta_data = '{}', deleted_at = $2, updated_at = $2 WHERE id = $1`, u.ID, now)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{})
	return nil
}

// adminListUsers handles GET /admin/users (contract E29) with GoTrue's
// pagination headers.
func (s *Service) adminListUsers(w http.ResponseWriter, r *http.Request) error {
	// Page numbers start at 1 and the default page holds 50 users, as in
	// the reference; 0 means "the default" rather than an error.
	q := r.URL.Query()
	page, perPage, err := pageParams(q)
	if err != nil {
		return err
	}
	ctx := r.Context()
	where, args := `u.instance_id = $1`, []any{instanceID}
	// filter is a substring of the email or full name, the dashboard's
	// search box; it is a bound parameter, never pasted into the SQL.
	if f := q.Get("filter"); f != "" {
		where += ` AND (u.email ILIKE $2 OR u.raw_user_meta_data->>'full_name' ILIKE $2)`
		args = append(args, "%"+f+"%")
	}
	// The total is counted with the same filter, for X-Total-Count.
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM auth.users u WHERE `+where, args...).Scan(&total); err != nil {
		return fmt.Errorf("count users: %w", err)
	}
	// Newest first by default; sort accepts "<column> asc|desc" for a few
	// columns (anything else keeps the default rather than failing).
	order := "u.created_at DESC, u.id"
	if sort := q.Get("sort"); sort != "" {
		field, dir, _ := strings.Cut(sort, " ")
		cols := map[string]string{"created_at": "u.created_at", "email": "u.email", "last_sign_in_at": "u.last_sign_in_at"}
		if c, ok := cols[field]; ok {
			order = c
			if strings.EqualFold(dir, "asc") {
				order += " ASC"
			} else {
				order += " DESC"
			}
			order += ", u.id"
		}
	}
	// One statement for the whole page: each user's identities and factors
	// come as JSON aggregates next to its row (relationColumns), where a
	// batch per user would cost a round trip each. order, perPage and the
	// offset are built from whitelisted columns and integers only.
	// A page far past the end is an empty page, not an overflowed offset.
	rows, err := s.db.Query(ctx, fmt.Sprintf(`SELECT %s FROM auth.users u WHERE %s ORDER BY %s LIMIT %d OFFSET %d`,
		userColumns+relationColumns, where, order, perPage, pageOffset(page, perPage)), args...)
	if err != nil {
		return fmt.Errorf("list users: %w", err)
	}
	users, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*user, error) { return scanUserWithRelations(row) })
	if err != nil {
		return fmt.Errorf("list users: %w", err)
	}
	if users == nil {
		users = []*user{}
	}
	setPageHeaders(w, r, page, perPage, total)
	writeJSON(w, http.StatusOK, map[string]any{"users": users, "aud": s.cfg.JWTAud})
	return nil
}

// pageParams reads GoTrue's paging parameters: page numbers start at 1
// and the default page holds 50 rows; 0 means "the default" rather than an
// error.
func pageParams(q url.Values) (page, perPage int, err error) {
	page, perPage = 1, 50
	for name, dst := range map[string]*int{"page": &page, "per_page": &perPage} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return 0, 0, badRequest("validation_failed", "Bad Pagination Parameters: %s must be a positive integer", name)
			}
			if n > 0 {
				*dst = n
			}
		}
	}
	return page, perPage, nil
}

// pageOffset is the OFFSET of a page; a page far past the end is an empty
// page, not an overflowed offset.
func pageOffset(page, perPage int) int {
	offset := (page - 1) * perPage
	if page > 1 && offset/perPage != page-1 {
		offset = math.MaxInt64
	}
	return offset
}

// setPageHeaders sets the paging headers of a list: Link (next and last)
// and X-Total-Count. Links repeat the request's query with page replaced
// (encoded, so page sorts before per_page), as the reference builds them.
func setPageHeaders(w http.ResponseWriter, r *http.Request, page, perPage, total int) {
	last := total / perPage
	if total%perPage != 0 {
		last++
	}
	link := func(page int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page))
		return "<" + r.URL.Path + "?" + q.Encode() + ">"
	}
	var links []string
	if page < last {
		links = append(links, link(page+1)+`; rel="next"`)
	}
	links = append(links, link(last)+`; rel="last"`)
	w.Header().Set("Link", strings.Join(links, ", "))
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
}

// inviteParams is the body of POST /invite; Data becomes the invited
// user's user_metadata.
type inviteParams struct {
	Email string         `json:"email"`
	Data  map[string]any `json:"data"`
}

// invite handles POST /invite (contract E28).
func (s *Service) invite(w http.ResponseWriter, r *http.Request) error {
	var p inviteParams
	if err := decode(r, &p); err != nil {
		return err
	}
	email, verr := validateEmail(p.Email)
	if verr != nil {
		return verr
	}
	redirect := s.redirectTarget(r, "")
	ctx := r.Context()
	var u *user
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		u, err = userByEmail(ctx, tx, email)
		switch {
		case errors.Is(err, pg.ErrNotFound):
			now := s.now()
			if u, err = s.createUser(ctx, tx, newUserParams{Email: email, UserMetadata: p.Data, InvitedAt: &now}); err != nil {
				return err
			}
		case err != nil:
			return err
		case u.EmailConfirmedAt != nil:
			return unprocessable("email_exists", "A user with this email address has already been registered")
		default:
			// Inviting someone who signed up but never confirmed sends a
			// fresh invitation to the same row, as the reference does.
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET invited_at = $2 WHERE id = $1`, u.ID, s.now()); err != nil {
				return fmt.Errorf("stamp invitation of %s: %w", u.ID, err)
			}
		}
		if _, err := s.deliverEmailOTP(ctx, tx, u, specInvite, email, redirect, false, true); err != nil {
			return err
		}
		if err := s.audit(ctx, tx, r, u, "user_invited", nil); err != nil {
			return err
		}
		u, err = userByID(ctx, tx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}
