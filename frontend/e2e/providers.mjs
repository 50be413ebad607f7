// Sign-in with a provider, end to end in the browser: a new fan signs up
// with "Continue with Google", which with-basalt.mjs points at a local
// OpenID Connect provider (auth/testidp, on mockoidc), lands on the role
// chooser, picks fan and reaches the fan dashboard. E2E_OIDC_CONTROL is
// that provider's control origin; without it (a Basalt started elsewhere)
// the journey is left out.
import assert from 'node:assert/strict'

/** register adds the journey to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, newPage, psql } = h
  const control = process.env.E2E_OIDC_CONTROL
  const name = 'a new fan signs up with Google (the local OIDC provider), chooses fan on the role chooser and reaches the fan dashboard'
  if (!control) {
    console.log(`  - skip ${name} (no local OIDC provider: run through e2e:basalt)`)
    return
  }
  /** next tells the provider who signs in at its next authorization. */
  const next = async (user) => {
    const res = await fetch(`${control}/control/next`, { method: 'POST', body: JSON.stringify(user) })
    if (!res.ok) throw new Error(`queue provider user: ${res.status} ${await res.text()}`)
  }

  test(name, async () => {
    const stamp = Date.now()
    const email = `oidcfan${stamp}@e2e.backline.test`
    await next({ sub: `oidc-fan-${stamp}`, email, email_verified: true, name: `OIDC Fan ${stamp}` })
    const { context, page } = await newPage()
    await page.goto(`${app}/login`)
    await page.getByRole('button', { name: 'Continue with Google' }).click()
    // The provider signs the queued user in at once and sends the browser
    // back through Basalt's callback to the role chooser.
    await page.waitForURL(/\/register/, { timeout: 15000 })
    await page.getByRole('heading', { name: 'One last step' }).waitFor({ timeout: 15000 })
    await page.getByTestId('role-fan').getByRole('button', { name: 'Continue as Fan' }).click()
    await page.waitForURL(/\/dashboard\/fan$/, { timeout: 15000 })
    await page.getByText('Fan Dashboard').waitFor()
    const row = psql(`SELECT i.provider || ' ' || i.provider_id || ' ' || r.role FROM auth.users u
      JOIN auth.identities i ON i.user_id = u.id JOIN public.user_roles r ON r.user_id = u.id WHERE u.email = '${email}'`)
    assert.equal(row, `google oidc-fan-${stamp} fan`, 'one Google identity from the local provider, role fan')
    await context.close()
  })
}
