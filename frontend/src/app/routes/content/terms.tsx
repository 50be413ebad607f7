import { Prose } from './prose'

/** TermsPage holds the terms of service. */
export default function TermsPage() {
  return (
    <Prose title="Terms of Service" updated="1 November 2026">
      <p>These terms govern your use of Backline. By creating an account you agree to them. Backline is governed by the laws of the Federal Republic of Nigeria.</p>
      <h2>1. Accounts</h2>
      <p>You must be at least 13 years old to use Backline, and 18 to hold a wallet, sponsor artists or cash out. You are responsible for your account and must give accurate information.</p>
      <h2>2. Artists and content</h2>
      <p>Artists confirm they own or control the rights to every track they upload and grant Backline a non-exclusive licence to stream it on the platform. We remove content that infringes others' rights.</p>
      <h2>3. Sponsorships and payments</h2>
      <ul>
        <li>Sponsors fund a naira wallet. Each valid stream of a sponsored track transfers the current per-stream amount (₦50) to the artist.</li>
        <li>A stream is valid only when a fan listens for at least 30 seconds and it passes our fraud, duplicate and velocity checks.</li>
        <li>Wallet balances are not deposits and earn no interest. Top-ups are non-refundable once used for streams.</li>
        <li>Artists may cash out from ₦1,000 to a Nigerian bank account in their own name, after identity (KYC) checks.</li>
      </ul>
      <h2>4. Prohibited conduct</h2>
      <p>Do not use bots, scripts, click farms, shared devices or any other means to inflate streams. We may void such streams, reverse payments, suspend accounts and report fraud to the authorities.</p>
      <h2>5. Suspension</h2>
      <p>We may suspend accounts that breach these terms. Suspended users cannot generate valid streams or move money; we will tell you the reason.</p>
      <h2>6. Liability</h2>
      <p>Backline is provided as is. To the extent the law allows, our liability is limited to the amount you paid us in the 12 months before the claim.</p>
      <h2>7. Changes</h2>
      <p>We will notify you of material changes to these terms at least 14 days before they take effect.</p>
    </Prose>
  )
}
