"""Send the nightly report by e-mail."""

import smtplib
import sys
from email.message import EmailMessage

from settings import load


def send(report_path):
    config = load()
    msg = EmailMessage()
    msg["Subject"] = "Nightly report"
    msg["From"] = config["MAIL_FROM"]
    msg["To"] = config["MAIL_TO"]
    with open(report_path) as f:
        msg.set_content(f.read())
    with smtplib.SMTP(config["SMTP_HOST"], int(config["SMTP_PORT"])) as smtp:
        smtp.starttls()
        smtp.login(config["SMTP_USER"], config["SMTP_PASSWORD"])
        smtp.send_message(msg)


if __name__ == "__main__":
    send(sys.argv[1])
