import { Prose } from './prose'

/** CopyrightPage explains copyright and takedowns. */
export default function CopyrightPage() {
  return (
    <Prose title="Copyright Policy" updated="1 November 2026">
      <p>Backline respects the rights of creators and complies with the Copyright Act 2022 of Nigeria.</p>
      <h2>Uploading music</h2>
      <p>Only upload recordings and compositions you own or are licensed to distribute. Samples and beats need clearance from their owners.</p>
      <h2>Reporting infringement</h2>
      <p>Send a notice to copyright@backline.ng with: your contact details, the work you own, the link to the content on Backline, a statement that the use is not authorised, and a statement that your notice is accurate, signed by you or your agent.</p>
      <h2>What happens next</h2>
      <ul>
        <li>We remove or disable the content promptly and tell the uploader.</li>
        <li>The uploader may send a counter-notice if they believe the removal was a mistake.</li>
        <li>Earnings from disputed tracks are held until the dispute is resolved.</li>
        <li>Repeat infringers lose their accounts.</li>
      </ul>
    </Prose>
  )
}
