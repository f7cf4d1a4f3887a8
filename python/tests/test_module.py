"""Parsing, printing and verifying modules; errors are XliteError."""

import pytest

import xlite

SMALL = """HloModule small
ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] add(x, x)
}
"""


def test_text_round_trip(module_file):
    module = xlite.Module.from_file(str(module_file))
    module.verify()
    again = xlite.Module.from_text(str(module))
    assert str(again) == str(module)


def test_name_and_parameters():
    module = xlite.Module.from_text(SMALL)
    assert module.name == "small"
    assert module.parameters == [("float32", (4,))]


def test_parse_error_names_the_position():
    with pytest.raises(xlite.XliteError, match=r"<text>:\d+:\d+: error"):
        xlite.Module.from_text("HloModule m\nENTRY e { ROOT x = f32[] bogus() }")


def test_missing_file_is_an_error():
    with pytest.raises(xlite.XliteError, match="cannot read"):
        xlite.Module.from_file("/nonexistent/module.hlo")


def test_verify_reports_violations():
    module = xlite.Module.from_text(SMALL.replace("f32[4] add", "f32[5] add"))
    with pytest.raises(xlite.XliteError):
        module.verify()
    with pytest.raises(xlite.XliteError):
        module.run([1, 2, 3, 4])
