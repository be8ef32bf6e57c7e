cat >config.py <<'PY'
"""Settings shared by the upload code."""

MAX_UPLOAD_MB = 25
PY
sed -i 's/^MAX_UPLOAD_MB = 25$/from config import MAX_UPLOAD_MB/' uploads.py forms.py
