# The defaults were spread last, so they overwrote the file's settings.
sed -i 's/return { ...settings, ...DEFAULTS };/return { ...DEFAULTS, ...settings };/' config.js
