import { Prose } from './prose'

/** PrivacyPage holds the privacy policy. */
export default function PrivacyPage() {
  return (
    <Prose title="Privacy Policy" updated="1 November 2026">
      <p>This policy explains how Backline collects and uses personal data, in line with the Nigeria Data Protection Act 2023 (NDPA).</p>
      <h2>What we collect</h2>
      <ul>
        <li>Account data: name, username, email, phone number, role and profile details you choose to add.</li>
        <li>Listening data: which tracks you stream, when and for how long.</li>
        <li>Device and network data: browser type, screen size, time zone, IP address and a device identifier, used to prevent fraud.</li>
        <li>Payment data: amounts, references and status from our payment providers. We never see or store full card numbers.</li>
        <li>Identity data for cash-outs and verification (KYC), as required by law.</li>
      </ul>
      <h2>Why we use it</h2>
      <p>To run your account, count streams and pay artists fairly, detect fraud, meet anti-money-laundering obligations, and improve the service. Analytics cookies are used only if you accept them.</p>
      <h2>Sharing</h2>
      <p>We share data with payment processors, hosting providers and, where legally required, regulators and law enforcement. We do not sell personal data.</p>
      <h2>Retention</h2>
      <p>We keep account data while your account is open. Financial records are kept for at least 5 years after the transaction, as Nigerian law requires.</p>
      <h2>Your rights</h2>
      <p>You can access, correct, export or delete your data, and object to processing, by writing to privacy@backline.ng. You may also complain to the Nigeria Data Protection Commission.</p>
      <h2>Cookies and local storage</h2>
      <p>We store your session, cookie choice, player settings and a device identifier in your browser. Choosing "Essential Only" disables everything else.</p>
    </Prose>
  )
}
