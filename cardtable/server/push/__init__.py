"""Web Push notifications for the online tables (docs/online.md, "Notifications"): the
server's VAPID keys, each device's subscription, the outbox the table saves write, and the
sender that delivers it. The app wires it to the online tables (`Push.on_saved`)."""
