import { Prose } from './prose'

/** AmlPolicyPage describes the anti-money-laundering programme. */
export default function AmlPolicyPage() {
  return (
    <Prose title="Anti-Money Laundering (AML) Policy" updated="1 November 2026">
      <p>
        Backline moves money between sponsors and artists. We follow the Money Laundering (Prevention and Prohibition) Act 2022 and guidance from
        the Nigerian Financial Intelligence Unit (NFIU) to keep the platform from being used to launder money or finance terrorism.
      </p>
      <h2>Know your customer</h2>
      <ul>
        <li>Artists must pass identity verification (BVN or NIN, with a matching bank account) before their first cash-out.</li>
        <li>Sponsors funding large amounts, and all business sponsors, must provide company registration (CAC) details.</li>
        <li>KYC approvals expire and must be renewed.</li>
      </ul>
      <h2>Monitoring</h2>
      <p>
        Every wallet movement is recorded in a ledger with a unique reference. We monitor for unusual patterns: streams from automated devices,
        circular payments between related accounts, rapid top-up and cash-out cycles, and activity that does not match a user's profile.
      </p>
      <h2>Limits and holds</h2>
      <p>The minimum cash-out is ₦1,000. Cash-outs are reviewed before payment and may be held while we investigate. We may reverse payments that came from fraudulent streams.</p>
      <h2>Reporting</h2>
      <p>We file suspicious transaction reports with the NFIU where required and may freeze accounts as the law allows. We are not permitted to tell a user that a report has been made.</p>
      <h2>Records</h2>
      <p>Identity and transaction records are kept for at least five years after an account closes.</p>
      <h2>Contact</h2>
      <p>Our compliance officer can be reached at compliance@backline.ng.</p>
    </Prose>
  )
}
