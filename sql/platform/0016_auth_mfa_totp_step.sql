-- The time step (Unix time / 30) of the last TOTP code a factor accepted,
-- so that a code is accepted once (RFC 6238 §5.2): a verification must be
-- for a later step, and claims it with one conditional UPDATE, which also
-- decides between two verifications racing with the same code, on any node.
-- Basalt's own column: the reference accepts a code again on a new
-- challenge within its time step. NULL until the first verification.
ALTER TABLE auth.mfa_factors ADD COLUMN IF NOT EXISTS last_totp_step bigint;
