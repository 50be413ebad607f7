// @vitest-environment jsdom
import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { Role } from '@/config/nav'
import type { Row } from '@/test/fake-backend'
import { installFakeApi, Location, renderApp, signIn } from '@/test/app'
import VerificationPage from './verification'
import VerificationSuccessPage from './verification-success'

const USER = '00000000-0000-4000-8000-0000000000b1'
const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString()

/** start signs a user of a role in with their profile and payments, and opens path. */
function start(path: string, { role = 'sponsor', profile = {}, payments = [], verifications = [], renewalDays = '30' }: { role?: Role; profile?: Row; payments?: Row[]; verifications?: Row[]; renewalDays?: string }) {
  signIn({ id: USER })
  const api = installFakeApi({
    tables: {
      public_profiles: [{ id: USER, is_verified: false, verification_expires_at: null, ...profile }],
      payments,
      verifications,
    },
    rpc: {
      get_app_bootstrap: () => ({
        settings: { coming_soon: false, countdown_target: null },
        user: { id: USER, role, profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 0, session_recorded: true },
      }),
      get_app_text_setting: ({ setting_key }) => (setting_key === 'verification_renewal_days' ? renewalDays : ''),
    },
  })
  const page = (p: string, element: React.ReactNode) => ({
    path: p,
    element: (
      <>
        <Location />
        {element}
      </>
    ),
  })
  renderApp([page('/verification', <VerificationPage />), page('/verification/success', <VerificationSuccessPage />)], path)
  return api
}

const pay = () => screen.queryByRole('button', { name: /^Pay ₦/ })

describe('/verification', () => {
  it('offers the badge to a sponsor who is not verified', async () => {
    start('/verification', {})
    expect((await screen.findByRole('button', { name: 'Pay ₦65,500' })).hasAttribute('disabled')).toBe(false)
    expect(screen.queryByTestId('verification-state')).toBeNull()
  })

  it('does not offer Pay while verified outside the last 30 days, and says when renewal opens', async () => {
    start('/verification', { profile: { is_verified: true, verification_expires_at: inDays(200) } })
    const note = await screen.findByTestId('verification-state')
    expect(note.textContent).toMatch(/^Your verification is active until .+\. You can renew it in its last 30 days\.$/)
    expect(pay()).toBeNull()
  })

  it('does not offer Pay for a verification without an expiry', async () => {
    start('/verification', { profile: { is_verified: true, verification_expires_at: null } })
    expect((await screen.findByTestId('verification-state')).textContent).toBe('Your profile is already verified.')
    expect(pay()).toBeNull()
  })

  it('offers renewal in the last 30 days', async () => {
    start('/verification', { profile: { is_verified: true, verification_expires_at: inDays(10) } })
    expect((await screen.findByTestId('verification-state')).textContent).toMatch(/^Your verification ends on .+\. Renew it now for another year\.$/)
    expect(pay()).not.toBeNull()
  })

  it('follows the renewal window the server is configured with', async () => {
    start('/verification', { profile: { is_verified: true, verification_expires_at: inDays(45) }, renewalDays: '60' })
    expect((await screen.findByTestId('verification-state')).textContent).toMatch(/Renew it now/)
    expect(pay()).not.toBeNull()
  })
})

describe('/verification/success', () => {
  const paid = (over: Row = {}): Row => ({ id: 'p1', user_id: USER, tx_ref: 'verification-1', purpose: 'verification', status: 'successful', completed_at: inDays(-0.001), created_at: inDays(-0.002), ...over })

  it('sends someone who paid nothing to /verification', async () => {
    start('/verification/success', { role: 'fan' })
    await screen.findByText('Verification is for artists and sponsors.')
    expect(screen.getByTestId('location').textContent).toBe('/verification')
    expect(screen.queryByText('Thank you!')).toBeNull()
  })

  it('thanks someone whose verification payment succeeded', async () => {
    start('/verification/success?gateway=flutterwave&verification=true&status=successful&tx_ref=verification-1', {
      payments: [paid()],
      verifications: [{ id: 'v1', user_id: USER, payment_id: 'p1' }],
    })
    await screen.findByRole('heading', { name: 'Thank you!' })
  })

  it('does not thank for a failed payment', async () => {
    start('/verification/success?tx_ref=verification-1', { payments: [paid({ status: 'failed' })] })
    await screen.findByRole('heading', { name: /Get verified/ })
    expect(screen.getByTestId('location').textContent).toBe('/verification')
  })

  it('does not thank for a successful payment that granted no verification', async () => {
    start('/verification/success?tx_ref=verification-1', { payments: [paid()] })
    await screen.findByRole('heading', { name: /Get verified/ })
    expect(screen.queryByText('Thank you!')).toBeNull()
  })

  it('waits while the returned payment is confirmed, then thanks', async () => {
    const { backend } = start('/verification/success?tx_ref=verification-1', { payments: [paid({ status: 'pending', completed_at: null })] })
    await screen.findByRole('heading', { name: 'Confirming your payment…' })
    // The provider's confirmation lands: the payment succeeds and grants the badge.
    Object.assign(backend.tables.payments[0], { status: 'successful', completed_at: new Date().toISOString() })
    backend.tables.verifications.push({ id: 'v1', user_id: USER, payment_id: 'p1' })
    await screen.findByRole('heading', { name: 'Thank you!' }, { timeout: 6000 })
  })
})
