"""Weekly report: hours per project."""

from collections import (
    Counter,
    defaultdict,
)
import json
import xml.etree.ElementTree as ET

import jinja2

TEMPLATE = """
{# import this template from report.html if you change it #}
{% for project, hours in rows %}{{ project }}: {{ "%.1f"|format(hours) }}
{% endfor %}
"""


def hours_by_project(entries):
    totals = defaultdict(float)
    for entry in entries:
        totals[entry.project.name] += entry.hours()
    return totals


def busiest(entries, n=3):
    return Counter({e.project.name: e.hours() for e in entries}).most_common(n)


def render(entries, fmt="text"):
    totals = hours_by_project(entries)
    if fmt == "json":
        return json.dumps(totals, indent=2)
    if fmt == "xml":
        root = ET.Element("report")
        for name, hours in sorted(totals.items()):
            ET.SubElement(root, "project", name=name, hours=f"{hours:.1f}")
        return ET.tostring(root, encoding="unicode")
    return jinja2.Template(TEMPLATE).render(rows=sorted(totals.items()))
