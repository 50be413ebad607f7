-- Money integrity:
--
--   * a verification is extended once, however many payments for it
--     complete at once: the decision is taken under the profile's row lock
--     when a payment completes, and a payment that would buy a second
--     verification while one is valid (outside its renewal days) is credited
--     to the payer's wallet instead, so no paid reference goes missing;
--   * the ledger-wide invariant (all wallets sum to zero, users hold the
--     ledger's net movement into user wallets) is kept as running totals,
--     updated in the same transaction as every wallet and ledger change, so
--     the admin's check reads a few rows instead of the whole ledger; a full
--     recheck recomputes everything from the tables;
--   * the dashboards' statement, analytics and wallet history read only the
--     user's own rows at a million streams (bench/dashboards).

-- ---------------------------------------------------------------------------
-- Verification once.
--
-- 0007's guard refuses a purchase while a verification is valid, but two
-- checkouts opened before either is paid both pass it, and each completion
-- used to add a year. Nothing can be refused before the provider charges
-- (the charge happens on the provider's page), so the rule is enforced where
-- the money arrives: complete_payment locks the profile row, so completions
-- for one user run one after the other and each sees the expiry the one
-- before it set. Every paid reference is then credited exactly once: to a
-- verification (verifications.payment_id, unique below) or to the ledger
-- (transactions.reference, unique) under the top-up's reference.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: fb939af4d7a8dbfddd707361804c7de93e2abbe55bb4e4b635b448ac60788945
CREATE UNIQUE INDEX verifications_payment_once ON public.verifications (payment_id) WHERE payment_id IS NOT NULL;

-- ---------------------------------------------------------------------------
-- Ledger running totals.
--
-- Sixteen slots, each a partial sum; a backend adds to the slot of its
-- process id, so concurrent money movements rarely wait on one another. The
-- triggers are deferred to commit: a transaction takes its slot's row lock
-- only at the very end, after every wallet lock it needs, so the slot cannot
-- take part in a deadlock. Totals are exact in every snapshot: a change and
-- its totals commit together.
CREATE TABLE backline.ledger_totals (
  slot smallint PRIMARY KEY CHECK (slot BETWEEN 0 AND 15),
  wallets_total numeric NOT NULL DEFAULT 0,    -- sum of every wallet
  wallets_users numeric NOT NULL DEFAULT 0,    -- sum of users' wallets
  wallets_negative bigint NOT NULL DEFAULT 0,  -- non-external wallets below zero
  ledger_count bigint NOT NULL DEFAULT 0,      -- ledger rows
  ledger_users_net numeric NOT NULL DEFAULT 0  -- net movement into users' wallets
);
INSERT INTO backline.ledger_totals (slot) SELECT g FROM generate_series(0, 15) g;
REVOKE ALL ON backline.ledger_totals FROM PUBLIC;

-- The invariant's figures: running (summed over the slots) or recounted
-- from the tables.
CREATE TYPE backline.ledger_state AS (
  wallets_total numeric, wallets_users numeric, wallets_negative bigint, ledger_count bigint, ledger_users_net numeric
);

-- The totals of the ledger as it stands, in slot 0: the recount of
-- backline.ledger_state_recount, written out, because a migration runs
-- against the schema of its time and the functions are applied after it.
UPDATE backline.ledger_totals t
SET wallets_total = w.total, wallets_users = w.users, wallets_negative = w.negative, ledger_count = l.n,
  ledger_users_net = l.net
FROM (SELECT coalesce(sum(balance), 0) AS total, coalesce(sum(balance) FILTER (WHERE kind = 'user'), 0) AS users,
        count(*) FILTER (WHERE kind <> 'external' AND balance < 0) AS negative
      FROM public.wallets) w,
     (SELECT count(*) AS n,
        coalesce(sum(CASE WHEN tw.kind = 'user' THEN x.amount ELSE 0 END
          - CASE WHEN fw.kind = 'user' THEN x.amount ELSE 0 END), 0) AS net
      FROM public.transactions x
      JOIN public.wallets fw ON fw.id = x.from_wallet
      JOIN public.wallets tw ON tw.id = x.to_wallet) l
WHERE t.slot = 0;
