-- Suspension means suspended: policies ask backline.active_uid() who the
-- caller is (functions/backline.caller_is_active.sql), so the API roles may
-- use the backline schema. They may execute nothing in it but that helper
-- and the rule it is built on (TestFunctionPrivileges), and the REST
-- layer does not expose the schema.
GRANT USAGE ON SCHEMA backline TO anon, authenticated, service_role;
