sed -i -e 's/^name = mail-relay$/name = "mail-relay"/' -e 's/^\[server$/[server]/' settings.toml
