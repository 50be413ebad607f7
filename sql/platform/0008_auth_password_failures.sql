-- Failed password sign-ins, per account and client address, for the
-- sign-in delays of the password grant (auth/README.md, "Password
-- guessing"). Kept in Postgres so every Basalt process of a project sees
-- the same counts. Basalt's own table: the reference server has none.
--
-- account is the hex SHA-256 of "email:<address>" or "phone:<number>", so
-- addresses typed for accounts that do not exist are not stored in clear;
-- unknown accounts are counted like real ones, or the delays would tell
-- which addresses have accounts. An attempt counts as failed from the
-- moment it is let through until its password proves right, which removes
-- the row; that is what makes racing attempts count.
CREATE TABLE IF NOT EXISTS auth.password_failures (
  account text NOT NULL,
  ip text NOT NULL,
  failures integer NOT NULL,
  last_failed_at timestamptz NOT NULL,
  PRIMARY KEY (account, ip)
);
-- Rows older than the memory of the limit are swept by age.
CREATE INDEX IF NOT EXISTS password_failures_last_failed_at_idx ON auth.password_failures (last_failed_at);

ALTER TABLE auth.password_failures ENABLE ROW LEVEL SECURITY;
GRANT ALL ON auth.password_failures TO service_role;
