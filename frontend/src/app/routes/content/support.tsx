import { Prose } from './prose'

/** SupportPage tells users how to get help. */
export default function SupportPage() {
  return (
    <Prose title="Support">
      <p>We're here to help artists, sponsors and fans. Most questions are answered in our FAQ; for anything else, reach us below.</p>
      <h2>Contact</h2>
      <ul>
        <li>Email: support@backline.ng (we reply within one business day)</li>
        <li>Payments and cash-outs: payments@backline.ng — include your payment reference</li>
        <li>Copyright notices: copyright@backline.ng</li>
        <li>Hours: Monday to Friday, 9:00–18:00 West Africa Time</li>
      </ul>
      <h2>Payment problems</h2>
      <p>
        If a top-up or verification payment left your card but did not reach your wallet, do not pay again. Send us the reference shown on your
        receipt; we reconcile every payment with our providers and credit confirmed payments exactly once.
      </p>
      <h2>Account security</h2>
      <p>Backline staff will never ask for your password or card PIN. If you think someone else has access to your account, reset your password and contact us.</p>
    </Prose>
  )
}
