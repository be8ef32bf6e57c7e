cat >settings.json <<'EOF'
{
  "appName": "Recipe Box",
  "tagline": "Grandma's recipes, online",
  "apiBase": "https://api.recipebox.app/v1",
  "pageSize": 24,
  "theme": {
    "primary": "#d35400",
    "accent": "#2c3e50",
    "dark": false
  },
  "locales": ["en", "de", "fr"],
  "analytics": {
    "enabled": true,
    "sampleRate": 0.25,
    "trackingId": null
  },
  "upload": {"maxMb": 8, "types": ["image/jpeg", "image/png"]}
}
EOF
