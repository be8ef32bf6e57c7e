python3 -c '
import json, yaml
with open("config/app.yaml") as f:
    data = yaml.safe_load(f)
with open("config/app.json", "w") as out:
    json.dump(data, out, indent=2)
    out.write("\n")
'
