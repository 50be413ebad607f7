// The Supabase contract as of late 2026, through supabase-js and fetch: the
// OpenAPI document for secret keys only, explicit grants on new tables, the
// new API keys on every service, asymmetric signing keys with states, and
// third-party auth.
import { test } from 'node:test'
import assert from 'node:assert/strict'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const serviceKey = process.env.SUPABASE_SERVICE_ROLE_KEY
const publishableKey = process.env.SUPABASE_PUBLISHABLE_KEY
const secretKey = process.env.SUPABASE_SECRET_KEY

const SCHEMA_FORBIDDEN = {
  message: 'Access to schema is forbidden',
  hint: 'Accessing the schema via the Data API is only allowed using a secret API key.',
}

test('the OpenAPI document at /rest/v1/ is for secret keys only', async () => {
  for (const key of [anonKey, publishableKey]) {
    for (const headers of [{ apikey: key }, { apikey: key, Authorization: `Bearer ${key}` }]) {
      const res = await fetch(`${url}/rest/v1/`, { headers })
      assert.equal(res.status, 401)
      assert.deepEqual(await res.json(), SCHEMA_FORBIDDEN)
    }
  }
  for (const key of [serviceKey, secretKey]) {
    const res = await fetch(`${url}/rest/v1/`, { headers: { apikey: key } })
    assert.equal(res.status, 200)
    const doc = await res.json()
    assert.equal(doc.swagger, '2.0')
  }
})
