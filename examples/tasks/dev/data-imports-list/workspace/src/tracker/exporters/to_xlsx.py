"""Export entries as an Excel sheet, when openpyxl is installed."""

try:
    from openpyxl import Workbook
    from openpyxl.styles import Font
except ImportError:  # optional dependency
    Workbook = None

from tracker import models


def write(db, path):
    if Workbook is None:
        raise RuntimeError("pip install openpyxl to export to Excel")
    book = Workbook()
    sheet = book.active
    sheet.append(["project", "start", "end"])
    sheet["A1"].font = Font(bold=True)
    for row in db.execute("SELECT project, start, end FROM entries ORDER BY start"):
        sheet.append(list(row))
    book.save(path)
