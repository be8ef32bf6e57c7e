import datetime
import pathlib

from blog.posts import page_of, tag_id, url_path

POSTS = pathlib.Path(__file__).resolve().parent.parent / "posts"


def test_url_path_plain():
    assert url_path("Why I Left the City", datetime.date(2024, 3, 9)) == "/2024/03/why-i-left-city/"


def test_url_path_accents():
    assert url_path("Crème Brûlée in Lyon", datetime.date(2023, 11, 2)) == "/2023/11/creme-brulee-lyon/"


def test_url_path_ampersand_and_punctuation():
    assert url_path("Ærøskøbing & Søby: A Bike Tour!", datetime.date(2024, 6, 30)) == "/2024/06/aeroskobing-and-soby-bike-tour/"


def test_tag_id():
    assert tag_id("Night Trains") == "night_trains"
    assert tag_id("Côte d'Azur") == "cote_d_azur"


def test_page_of_post_file():
    assert page_of(POSTS / "2024-05-bergen.md") == "/2024/05/rainy-week-bergen/"
