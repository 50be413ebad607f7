-- realtime.messages: Backline's realtime channels are private (Realtime Authorization): a
-- join is decided by these policies on realtime.messages, run as the
-- joining user, so only signed-in users who are not suspended join them,
-- and suspending a user closes the ones they hold (the platform re-runs
-- these policies for them when realtime.reauthorize_user is called).
--
-- online-users: the online dots. Members read presence; a member tracks
-- presence under their own id (the platform binds a private channel's
-- presence key to the joiner's sub), so nobody appears as someone else and
-- visitors do not count as online. Nobody broadcasts there.
--
-- live:<page>:<n>: one channel per live page (the frontend's
-- openLiveTable), carrying postgres_changes only; the rows themselves are
-- still filtered by each table's own policies. A private join needs a
-- read policy, which broadcast reads give (nobody can send any).
DROP POLICY IF EXISTS "app channels: members read" ON realtime.messages;
CREATE POLICY "app channels: members read" ON realtime.messages FOR SELECT TO authenticated
USING (
  (SELECT backline.caller_is_active())
  AND (
    (realtime.topic() = 'online-users' AND realtime.messages.extension = 'presence')
    OR (realtime.topic() LIKE 'live:%' AND realtime.messages.extension = 'broadcast')
  )
);

DROP POLICY IF EXISTS "app channels: members are present" ON realtime.messages;
CREATE POLICY "app channels: members are present" ON realtime.messages FOR INSERT TO authenticated
WITH CHECK (
  (SELECT backline.caller_is_active())
  AND realtime.topic() = 'online-users'
  AND realtime.messages.extension = 'presence'
);
