"""The channels a notice goes out on: email (through the mail relay's SMTP server),
Slack (a direct message from the app's bot) and Microsoft Teams (a card in the channel
a webhook posts to, mentioning the person)."""
