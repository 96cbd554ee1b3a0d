"""Write the sample vault's PDF and HTML documents (data/sample-vault/).

Most trust documents reach a vault as PDFs and saved web pages rather than Markdown, so the
sample vault carries one of each, and the sample suite cites them:

- ``acceptable-use-policy.pdf``: the Acceptable Use Policy that the Information Security Policy
  lists in its policy framework; two A4 pages with a running header and footer, sections 6-9
  on page 2 (``acceptable-use-policy.pdf#p.2``);
- ``support-and-service-levels.html``: the help-centre page on support and service levels, saved
  with its navigation, cookie banner, analytics scripts and footer, which must not be indexed.

Their facts agree with the Markdown documents (99.9 % availability and the status page of the
Business Continuity and Backup Standard, security awareness training of the Information
Security Policy) and stay off the topics the sample suite keeps out of the vault on purpose
(subprocessors, incident response, penetration tests). The output is deterministic; run it
after editing the text and commit both files:

    .venv/bin/python data/sample-vault-sources/make_documents.py
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF

VAULT = Path(__file__).resolve().parent.parent / "sample-vault"
PDF_NAME = "acceptable-use-policy.pdf"
HTML_NAME = "support-and-service-levels.html"
_CREATED = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)  # fixed, so the file is reproducible

# (heading, paragraphs, bullet items); None as a section starts page 2.
Section = tuple[str, list[str], list[str]]
AUP_TITLE = "Tallyhawk Acceptable Use Policy"
AUP_META = [
    "Policy ID: TH-POL-AUP    Version: 2.1    Owner: Chief Information Security Officer",
    "Approved by: Security Steering Committee, 3 September 2026    Review cycle: Annually",
]
AUP_PAGE_1: list[Section] = [
    (
        "1. Purpose and Scope",
        [
            "This policy sets the rules for using Tallyhawk, Inc. devices, accounts, "
            "networks and information. It applies to all employees and contractors, on any "
            "device used for Tallyhawk work, and it supports the Information Security Policy "
            "and the Access Control Policy.",
        ],
        [],
    ),
    (
        "2. Company Devices",
        ["Tallyhawk work is done on company-managed devices only."],
        [
            "Laptops are enrolled in device management and have full-disk encryption "
            "enabled before first use.",
            "Screens lock automatically after 5 minutes of inactivity; lock your screen "
            "whenever you leave your device.",
            "Operating system and browser security updates are installed within 14 days of "
            "release.",
            "Do not disable the endpoint protection agent or the device health check.",
        ],
    ),
    (
        "3. Accounts and Credentials",
        [
            "Every account belongs to one named person. Never share your password, your "
            "hardware security key or a session with anyone, including colleagues and IT "
            "staff.",
        ],
        [
            "Store work passwords only in the company password manager.",
            "Use single sign-on wherever an application supports it.",
            "Report a suspected credential compromise to the Security team at once.",
        ],
    ),
    (
        "4. Handling Customer Data",
        [
            "Customer Data is Confidential information. It stays in the production "
            "environment of the customer's region and is accessed only to deliver or "
            "support the service.",
        ],
        [
            "Do not copy Customer Data to laptops, removable media or personal storage.",
            "Customer Data must never be entered into public AI chatbots or other AI "
            "tools that the Security team has not approved.",
            "Share Confidential documents with customers only through the Trust Portal or "
            "another approved channel.",
        ],
    ),
    (
        "5. Email, Messaging and Phishing",
        [
            "Use company email and the company messaging workspace for Tallyhawk business; "
            "do not forward work email to personal accounts. Report suspicious messages "
            "with the Report Phishing button. Phishing simulations are part of the security "
            "awareness programme.",
        ],
        [],
    ),
]
AUP_PAGE_2: list[Section] = [
    (
        "6. Lost or Stolen Devices",
        [
            "Report a lost or stolen laptop, phone or hardware security key to the Security "
            "team at security@tallyhawk.example within 1 hour of noticing the loss, and to "
            "the police where theft is suspected.",
            "The Security team locks the device, revokes its sessions and certificates and "
            "wipes it remotely. A replacement hardware security key is issued after the lost "
            "key has been revoked.",
        ],
        [],
    ),
    (
        "7. Personal Use",
        [
            "Limited personal use of company devices is allowed when it does not interfere "
            "with work, break the law or this policy, or put Tallyhawk information at risk. "
            "Personal files are not backed up and may be deleted when a device is wiped.",
        ],
        [],
    ),
    (
        "8. Software and Services",
        [
            "Install software only from the company software catalogue. Any other software "
            "or cloud service, including browser extensions, needs approval from the "
            "Security team before it is used with Tallyhawk information.",
        ],
        [],
    ),
    (
        "9. Monitoring and Enforcement",
        [
            "Company devices, accounts and networks are monitored to protect Tallyhawk and "
            "its customers, within the limits of local law. All personnel acknowledge this "
            "policy on hire and annually. Violations are handled under the Information "
            "Security Policy and may lead to disciplinary action, up to and including "
            "termination of employment or contract.",
        ],
        [],
    ),
]


class _PolicyPdf(FPDF):
    """A4 pages with the running header and footer a real policy PDF has."""

    def header(self) -> None:
        self.set_font("Helvetica", "", 8)
        self.cell(0, 6, "Tallyhawk, Inc. - Internal", align="R")
        self.ln(10)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.cell(0, 6, f"TH-POL-AUP v2.1 - Page {self.page_no()} of {{nb}}", align="C")


def _write_sections(pdf: FPDF, sections: list[Section]) -> None:
    for heading, paragraphs, bullets in sections:
        pdf.set_font("Helvetica", "B", 13)
        pdf.multi_cell(0, 7, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
        pdf.set_font("Helvetica", "", 10.5)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 5.5, paragraph, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        for item in bullets:
            pdf.set_x(pdf.l_margin + 4)
            pdf.multi_cell(0, 5.5, f"- {item}", new_x="LMARGIN", new_y="NEXT")
        if bullets:
            pdf.ln(2)
        pdf.ln(2)


def write_pdf(path: Path) -> None:
    pdf = _PolicyPdf(format="A4")
    pdf.set_title(AUP_TITLE)
    pdf.set_author("Tallyhawk, Inc.")
    pdf.set_creation_date(_CREATED)
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.multi_cell(0, 9, AUP_TITLE, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 9)
    for line in AUP_META:
        pdf.multi_cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    _write_sections(pdf, AUP_PAGE_1)
    pdf.add_page()
    _write_sections(pdf, AUP_PAGE_2)
    if pdf.page_no() != 2:
        raise SystemExit(f"{path.name} should have 2 pages, has {pdf.page_no()}: shorten the text")
    pdf.output(str(path))


SUPPORT_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Support and Service Levels | Tallyhawk Help Center</title>
<link rel="stylesheet" href="/static/help-center.css">
<style>.cookie-banner{position:fixed;bottom:0}.site-nav a{margin:0 1em}</style>
<script async src="https://analytics.tallyhawk.example/tag.js?id=TH-ANALYTICS-7781"></script>
<script>
  window.dataLayer = window.dataLayer || [];
  function track(){ dataLayer.push(arguments); }
  track('page_view', {section: 'help-center', experiment: 'sla-banner-b'});
</script>
</head>
<body>
<header class="site-header">
  <a class="logo" href="https://www.tallyhawk.example/">Tallyhawk</a>
  <nav class="site-nav" aria-label="Main">
    <ul>
      <li><a href="/product">Product</a></li>
      <li><a href="/pricing">Pricing</a></li>
      <li><a href="/customers">Customer stories</a></li>
      <li><a href="/trust">Trust Center</a></li>
      <li><a href="/login">Log in</a></li>
      <li><a href="/signup" class="button">Start free trial</a></li>
    </ul>
  </nav>
</header>
<div class="cookie-banner" role="dialog" aria-label="Cookie consent">
  We use cookies to personalise content and analyse our traffic.
  <button id="accept-cookies">Accept all cookies</button> <a href="/cookies">Cookie settings</a>
</div>
<nav class="breadcrumbs" aria-label="Breadcrumb">
  <a href="/help">Help Center</a> &rsaquo; <a href="/help/account">Account and billing</a>
</nav>
<main id="main-content">
<article>
<h1>Tallyhawk Support and Service Level Policy</h1>
<p>This page describes how customers of Tallyhawk Ledger get support, how quickly we respond,
the availability we commit to and the service credits that apply when we miss it. It is part
of the customer agreement for the Business and Enterprise plans.</p>

<h2>Support Channels</h2>
<p>Open a ticket in the Help Center at help.tallyhawk.example or email
support@tallyhawk.example. Customer administrators can see every ticket of their organisation
in the admin console.</p>
<ul>
  <li><strong>Standard and Business plans:</strong> support from 09:00 to 18:00, Monday to
  Friday, in the customer's hosting region (EU or US), excluding public holidays.</li>
  <li><strong>Enterprise plan:</strong> 24/7 support for Priority 1 tickets, and a named
  technical account manager.</li>
</ul>

<h2>Ticket Priorities and Response Times</h2>
<p>The customer sets the priority when opening a ticket; support may change it with the
customer's agreement. Response times are measured from the moment the ticket is received to
the first response by a support engineer.</p>
<table>
  <thead><tr><th>Priority</th><th>Meaning</th><th>First response</th></tr></thead>
  <tbody>
    <tr><td>Priority 1</td>
      <td>Tallyhawk Ledger is unavailable or usage data cannot be submitted</td>
      <td>1 hour</td></tr>
    <tr><td>Priority 2</td><td>A major function is degraded with no workaround</td>
      <td>4 business hours</td></tr>
    <tr><td>Priority 3</td><td>A function is impaired and a workaround exists</td>
      <td>1 business day</td></tr>
    <tr><td>Priority 4</td><td>Questions, configuration help and feature requests</td>
      <td>3 business days</td></tr>
  </tbody>
</table>

<h2>Availability Commitment</h2>
<p>Tallyhawk commits to a monthly availability of <strong>99.9%</strong> for the Ledger
module, measured every minute by external synthetic checks from outside our hosting
provider. Scheduled maintenance announced at least 7 days in advance on the status page does
not count as downtime; it is carried out outside the business hours of the affected region.</p>

<h3>Service Credits</h3>
<p>When monthly availability of the Ledger module falls below the commitment, Enterprise
customers receive a credit on the next invoice:</p>
<ul>
  <li>below 99.9%: a credit of <strong>10%</strong> of that month's subscription fee;</li>
  <li>below 99.0%: a credit of <strong>25%</strong> of that month's subscription fee.</li>
</ul>
<p>Credits must be requested through a support ticket by the end of the calendar month after
the month concerned. Service credits are the sole remedy for missed availability.</p>

<h2>Status Page</h2>
<p>The public status page at status.tallyhawk.example shows the current state of each module
and region, scheduled maintenance and the availability of the last 90 days. Customers can
subscribe to updates by email or RSS.</p>
</article>
</main>
<aside class="related-articles">
  <h3>Related articles</h3>
  <ul>
    <li><a href="/help/billing/invoices">Download your invoices</a></li>
    <li><a href="/blog/how-we-scaled-metering">How we scaled metering to a billion events</a></li>
  </ul>
</aside>
<footer class="site-footer">
  <div class="newsletter">Subscribe to the Tallyhawk newsletter for product news.
    <form action="/newsletter"><input type="email" placeholder="you@company.example">
      <button>Subscribe</button></form>
  </div>
  <nav aria-label="Footer">
    <a href="/about">About us</a> <a href="/careers">Careers</a> <a href="/privacy">Privacy</a>
    <a href="/terms">Terms of Service</a> <a href="/cookies">Cookie policy</a>
  </nav>
  <p>&copy; 2026 Tallyhawk, Inc. All rights reserved. 500 Harbor Street, Suite 1200.</p>
</footer>
<script src="/static/help-center.bundle.js"></script>
<script>
  document.getElementById('accept-cookies').onclick = function () {
    localStorage.setItem('consent', 'all');
  };
</script>
</body>
</html>
"""


def main() -> None:
    write_pdf(VAULT / PDF_NAME)
    (VAULT / HTML_NAME).write_text(SUPPORT_PAGE, encoding="utf-8")
    for name in (PDF_NAME, HTML_NAME):
        print(f"wrote {VAULT / name} ({(VAULT / name).stat().st_size} bytes)")


if __name__ == "__main__":
    main()
