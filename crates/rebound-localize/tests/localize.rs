//! Localization end to end: genuine outputs of python3 (unittest, pytest,
//! json, tomllib, PyYAML), cargo, gcc and make, captured in
//! `tests/fixtures/localize/<case>/output.txt` from the small projects
//! beside them, are parsed against a fresh copy of the project (the
//! `{WORKSPACE}` in the output is the copy's path), located and rendered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use rebound_localize::{
    called_names, enclosing_definition, find_definition, locate, parse, render, DefinitionKind,
    Failure, FailureKind, Language, Location, Place, Span, Suspect, SuspectReason,
};
use tempfile::TempDir;

const BUDGET: usize = 1500;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/localize")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A fixture's project copied to a temp dir, with its command and output.
struct Case {
    workspace: TempDir,
    command: String,
    output: String,
}

impl Case {
    fn new(name: &str) -> Case {
        let dir = fixtures().join(name);
        let workspace = tempfile::tempdir().unwrap();
        copy_dir(&dir.join("project"), workspace.path());
        let command = std::fs::read_to_string(dir.join("command.txt")).unwrap();
        let output = std::fs::read_to_string(dir.join("output.txt"))
            .unwrap()
            .replace("{WORKSPACE}", workspace.path().to_str().unwrap());
        Case {
            workspace,
            command: command.trim().to_string(),
            output,
        }
    }

    fn path(&self) -> &Path {
        self.workspace.path()
    }

    fn failures(&self) -> Vec<Failure> {
        parse(&self.command, &self.output, self.path())
    }

    fn suspects(&self) -> Vec<Suspect> {
        locate(self.path(), &self.failures())
    }

    fn text(&self) -> String {
        let failures = self.failures();
        render(&failures, &locate(self.path(), &failures), BUDGET)
    }
}

fn at(file: &str, line: u32, column: Option<u32>, function: Option<&str>) -> Location {
    Location {
        file: file.into(),
        line,
        column,
        function: function.map(Into::into),
        place: Place::Workspace,
    }
}

fn outside(file: &str, line: u32, function: &str) -> Location {
    Location {
        place: Place::Outside,
        ..at(file, line, None, Some(function))
    }
}

fn failure(
    kind: FailureKind,
    test: Option<&str>,
    message: &str,
    location: Option<Location>,
    frames: Vec<Location>,
) -> Failure {
    Failure {
        kind,
        test: test.map(Into::into),
        message: message.into(),
        location,
        frames,
    }
}

fn span(name: &str, kind: DefinitionKind, start_line: u32, end_line: u32) -> Option<Span> {
    Some(Span {
        name: name.into(),
        kind,
        start_line,
        end_line,
    })
}

/// A suspect's failure, file, line, span and reason (its window is checked
/// through the rendered text).
type Brief = (usize, String, u32, Option<Span>, SuspectReason);

fn briefs(suspects: &[Suspect]) -> Vec<Brief> {
    suspects
        .iter()
        .map(|s| {
            (
                s.failure,
                s.file.clone(),
                s.line,
                s.span.clone(),
                s.reason.clone(),
            )
        })
        .collect()
}

fn called(name: &str) -> SuspectReason {
    SuspectReason::Called { name: name.into() }
}

const PY: &str = "/root/.pyenv/versions/3.11.7/lib/python3.11";

#[test]
fn a_unittest_failure_leads_to_the_function_the_assertion_calls() {
    let case = Case::new("unittest");
    assert_eq!(
        case.failures(),
        [
            failure(
                FailureKind::UnittestFailure,
                Some("test_calc.T.test_div"),
                "ZeroDivisionError: division by zero",
                Some(at("calc.py", 13, None, Some("div"))),
                vec![
                    at("test_calc.py", 14, None, Some("test_div")),
                    at("calc.py", 13, None, Some("div")),
                ],
            ),
            failure(
                FailureKind::UnittestFailure,
                Some("test_calc.T.test_sub"),
                "AssertionError: -2 != 2",
                Some(at("test_calc.py", 11, None, Some("test_sub"))),
                vec![at("test_calc.py", 11, None, Some("test_sub"))],
            ),
        ]
    );
    assert_eq!(
        briefs(&case.suspects()),
        [
            (
                0,
                "calc.py".into(),
                13,
                span("div", DefinitionKind::Function, 12, 13),
                SuspectReason::Frame
            ),
            (
                1,
                "calc.py".into(),
                8,
                span("sub", DefinitionKind::Function, 8, 9),
                called("sub")
            ),
        ]
    );
    assert_eq!(
        case.text(),
        "\
FAIL test_calc.T.test_div: ZeroDivisionError: division by zero
at calc.py:13 (in div)
frames: test_calc.py:14 (test_div) > calc.py:13 (div)
suspect: calc.py:12-13, def div
 12 | def div(a, b):
 13 |     return a / b

FAIL test_calc.T.test_sub: AssertionError: -2 != 2
at test_calc.py:11 (in test_sub)
suspect: calc.py:8-9, def sub
 8 | def sub(a, b):
 9 |     return b - a"
    );
}

#[test]
fn an_assertion_that_calls_nothing_leads_to_what_the_test_called_before() {
    let case = Case::new("unittest_state");
    let failures = case.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(
        failures[0].message,
        "AssertionError: Lists differ: ['apple'] != []"
    );
    assert_eq!(
        briefs(&case.suspects()),
        [
            (
                0,
                "cart.py".into(),
                4,
                span("Cart", DefinitionKind::Class, 4, 9),
                called("Cart")
            ),
            (
                0,
                "cart.py".into(),
                8,
                span("add", DefinitionKind::Method, 8, 9),
                called("add")
            ),
        ]
    );
}

#[test]
fn a_pytest_report_gives_test_ids_assertions_and_frames() {
    let case = Case::new("pytest");
    assert_eq!(
        case.failures(),
        [
            failure(
                FailureKind::PytestFailure,
                Some("tests/test_cart.py::test_total"),
                "assert 9.0 == 10; + where 9.0 = total(); + where total = <shop.cart.Cart object at 0x7f59d4c87f90>.total",
                Some(at("tests/test_cart.py", 8, None, None)),
                vec![at("tests/test_cart.py", 8, None, None)],
            ),
            failure(
                FailureKind::PytestFailure,
                Some("tests/test_cart.py::test_discount"),
                "ValueError: bad percent 150",
                Some(at("shop/cart.py", 14, None, None)),
                vec![
                    at("tests/test_cart.py", 12, None, None),
                    at("shop/cart.py", 14, None, None),
                ],
            ),
        ]
    );
    assert_eq!(
        briefs(&case.suspects()),
        [
            (
                0,
                "shop/cart.py".into(),
                8,
                span("total", DefinitionKind::Method, 8, 9),
                called("total")
            ),
            (
                1,
                "shop/cart.py".into(),
                14,
                span("discount", DefinitionKind::Function, 12, 15),
                SuspectReason::Frame
            ),
        ]
    );
    assert_eq!(
        case.text(),
        "\
FAIL tests/test_cart.py::test_total: assert 9.0 == 10; + where 9.0 = total(); + where total = <shop.cart.Cart object at 0x7f59d4c87f90>.total
at tests/test_cart.py:8
suspect: shop/cart.py:8-9, def total
 8 |     def total(self):
 9 |         return sum(price for _, price in self.items) * 0.9

FAIL tests/test_cart.py::test_discount: ValueError: bad percent 150
at shop/cart.py:14
frames: tests/test_cart.py:12 > shop/cart.py:14
suspect: shop/cart.py:12-15, def discount
 12 | def discount(total, percent):
 13 |     if percent > 100:
 14 |         raise ValueError(f\"bad percent {percent}\")
 15 |     return total * percent / 100"
    );
}

#[test]
fn pytest_short_tracebacks_and_class_tests() {
    let case = Case::new("pytest_short");
    let failures = case.failures();
    let ids: Vec<_> = failures
        .iter()
        .map(|f| f.test.as_deref().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "tests/test_cart.py::test_total",
            "tests/test_cart.py::test_discount",
            "tests/test_cart.py::TestCart::test_empty",
        ]
    );
    assert_eq!(
        failures[1].frames,
        [
            at("tests/test_cart.py", 12, None, Some("test_discount")),
            at("shop/cart.py", 14, None, Some("discount")),
        ]
    );
    // `Cart().total()`: the method is suspected, not the class around it.
    assert_eq!(
        briefs(&case.suspects()),
        [
            (
                0,
                "shop/cart.py".into(),
                8,
                span("total", DefinitionKind::Method, 8, 9),
                called("total")
            ),
            (
                1,
                "shop/cart.py".into(),
                14,
                span("discount", DefinitionKind::Function, 12, 15),
                SuspectReason::Frame
            ),
            (
                2,
                "shop/cart.py".into(),
                8,
                span("total", DefinitionKind::Method, 8, 9),
                called("total")
            ),
        ]
    );
    assert!(case.text().ends_with(
        "at tests/test_cart.py:17 (in test_empty)\nsuspect: shop/cart.py:8-9, def total (shown above)"
    ));
}

#[test]
fn a_pytest_collection_error_points_at_the_import() {
    let case = Case::new("pytest_collect");
    assert_eq!(
        case.failures(),
        [failure(
            FailureKind::PytestFailure,
            Some("tests/test_broken.py"),
            "ImportError: cannot import name 'Carts' from 'shop.cart' (shop/cart.py)",
            Some(at("tests/test_broken.py", 1, None, Some("<module>"))),
            vec![
                outside(&format!("{PY}/importlib/__init__.py"), 126, "import_module"),
                at("tests/test_broken.py", 1, None, Some("<module>")),
            ],
        )]
    );
    // The module it imports from lacks the name: the addition (or the
    // rename) goes there, not in the test.
    assert_eq!(
        briefs(&case.suspects()),
        [(
            0,
            "shop/cart.py".into(),
            15,
            None,
            SuspectReason::Missing {
                name: "Carts".into()
            }
        )]
    );
}

#[test]
fn a_traceback_leads_to_its_innermost_project_frame() {
    let case = Case::new("python_traceback");
    let frames = vec![
        at("main.py", 13, None, Some("<module>")),
        at("main.py", 9, None, Some("main")),
        at("app/stats.py", 11, None, Some("report")),
        at("app/stats.py", 5, None, Some("mean")),
    ];
    assert_eq!(
        case.failures(),
        [failure(
            FailureKind::PythonTraceback,
            None,
            "ZeroDivisionError: division by zero",
            Some(at("app/stats.py", 5, None, Some("mean"))),
            frames,
        )]
    );
    assert_eq!(
        case.text(),
        "\
ERROR: ZeroDivisionError: division by zero
at app/stats.py:5 (in mean)
frames: main.py:13 (<module>) > main.py:9 (main) > app/stats.py:11 (report) > app/stats.py:5 (mean)
suspect: app/stats.py:1-5, def mean
 1 | def mean(values):
 2 |     total = 0
 3 |     for v in values:
 4 |         total += v
 5 |     return total / len(values)"
    );
}

#[test]
fn a_syntax_error_shows_the_lines_around_it() {
    let case = Case::new("python_syntax");
    let failures = case.failures();
    assert_eq!(failures[0].message, "SyntaxError: expected ':'");
    assert_eq!(
        failures[0].location,
        Some(at("app/stats.py", 1, None, None))
    );
    let suspects = case.suspects();
    assert_eq!(
        briefs(&suspects),
        [(0, "app/stats.py".into(), 1, None, SuspectReason::Frame)]
    );
    assert_eq!(
        (suspects[0].window.start_line, suspects[0].window.end_line()),
        (1, 12)
    );
    assert!(case
        .text()
        .contains("suspect: app/stats.py:1-12, lines around 1\n  1 | def mean(values)\n"));
}

#[test]
fn data_file_errors_point_into_the_file() {
    let json = Case::new("json_tool");
    assert_eq!(
        json.failures(),
        [failure(
            FailureKind::JsonParseError,
            None,
            "Expecting ',' delimiter: line 4 column 3 (char 41)",
            Some(at("package.json", 4, Some(3), None)),
            vec![],
        )]
    );
    assert_eq!(
        json.text(),
        "\
JSON: Expecting ',' delimiter: line 4 column 3 (char 41)
at package.json:4:3
suspect: package.json:1-5, document
 1 | {
 2 |   \"name\": \"demo\",
 3 |   \"version\": \"1.0\"
 4 |   \"private\": true
 5 | }"
    );

    let toml = Case::new("toml");
    let failures = toml.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].kind, FailureKind::TomlParseError);
    assert_eq!(
        failures[0].message,
        "tomllib.TOMLDecodeError: Invalid value (at line 2, column 8)"
    );
    assert_eq!(
        failures[0].location,
        Some(at("config.toml", 2, Some(8), None))
    );
    assert_eq!(failures[0].frames.len(), 6);
    assert_eq!(failures[0].frames[0], outside("<string>", 1, "<module>"));
    assert_eq!(
        toml.text(),
        "\
TOML: tomllib.TOMLDecodeError: Invalid value (at line 2, column 8)
at config.toml:2:8
suspect: config.toml:1-3, lines around 2
 1 | [tool]
 2 | name = demo
 3 | version = \"1.0\""
    );

    let yaml = Case::new("yaml");
    let failures = yaml.failures();
    assert_eq!(failures[0].kind, FailureKind::YamlParseError);
    assert_eq!(
        failures[0].message,
        "yaml.parser.ParserError: while parsing a block mapping; in \"config.yaml\", line 1, column 1; expected <block end>, but found '<block mapping start>'; in \"config.yaml\", line 4, column 2"
    );
    assert_eq!(
        failures[0].location,
        Some(at("config.yaml", 4, Some(2), None))
    );

    let flow = Case::new("yaml_flow");
    let failures = flow.failures();
    assert_eq!(
        failures[0].location,
        Some(at("list.yaml", 4, Some(9), None))
    );
    assert_eq!(
        briefs(&flow.suspects()),
        [(0, "list.yaml".into(), 4, None, SuspectReason::Reported)]
    );
}

#[test]
fn a_json_error_inside_a_program_points_at_the_load() {
    let case = Case::new("json_traceback");
    let failures = case.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].kind, FailureKind::JsonParseError);
    assert_eq!(
        failures[0].message,
        "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 4 column 3 (char 41)"
    );
    // The command does not name the file: the program that loads it does
    // (`open("data.json")`).
    assert_eq!(
        failures[0].location,
        Some(at("data.json", 4, Some(3), None))
    );
    assert_eq!(
        failures[0].frames.last(),
        Some(&outside(
            &format!("{PY}/json/decoder.py"),
            353,
            "raw_decode"
        ))
    );
    assert_eq!(
        briefs(&case.suspects()),
        [(
            0,
            "data.json".into(),
            4,
            span("", DefinitionKind::Document, 1, 5),
            SuspectReason::Reported
        )]
    );
}

#[test]
fn rustc_errors_point_at_their_functions() {
    let case = Case::new("rustc_error");
    assert_eq!(
        case.failures(),
        [
            failure(
                FailureKind::RustCompileError,
                None,
                "error[E0425]: cannot find value `factor` in this scope (not found in this scope)",
                Some(at("src/lib.rs", 8, Some(9), None)),
                vec![],
            ),
            failure(
                FailureKind::RustCompileError,
                None,
                "error[E0308]: mismatched types (expected `u16`, found `Result<_, _>`)",
                Some(at("src/lib.rs", 2, Some(21), None)),
                vec![],
            ),
        ]
    );
    assert_eq!(
        case.text(),
        "\
BUILD: error[E0425]: cannot find value `factor` in this scope (not found in this scope)
at src/lib.rs:8:9
suspect: src/lib.rs:6-9, fn double
 6 | pub fn double(x: i32) -> i32 {
 7 |     let unused = 1;
 8 |     x * factor
 9 | }

BUILD: error[E0308]: mismatched types (expected `u16`, found `Result<_, _>`)
at src/lib.rs:2:21
suspect: src/lib.rs:1-4, fn parse_port
 1 | pub fn parse_port(text: &str) -> u16 {
 2 |     let port: u16 = text.trim().parse();
 3 |     port
 4 | }"
    );
}

#[test]
fn rust_test_panics_lead_to_the_code_under_test() {
    let case = Case::new("rust_test");
    assert_eq!(
        case.failures(),
        [
            failure(
                FailureKind::RustPanic,
                Some("tests::doubles"),
                "assertion `left == right` failed; left: 6; right: 4",
                Some(at("src/lib.rs", 18, Some(9), None)),
                vec![at("src/lib.rs", 18, Some(9), None)],
            ),
            failure(
                FailureKind::RustPanic,
                Some("tests::divides"),
                "division by zero: 4 / 0",
                Some(at("src/lib.rs", 7, Some(9), None)),
                vec![at("src/lib.rs", 7, Some(9), None)],
            ),
            failure(
                FailureKind::RustPanic,
                Some("tests::plain_assert"),
                "double(1) should be 2",
                Some(at("src/lib.rs", 28, Some(9), None)),
                vec![at("src/lib.rs", 28, Some(9), None)],
            ),
        ]
    );
    let expected = [
        (
            0,
            "src/lib.rs".into(),
            1,
            span("double", DefinitionKind::Function, 1, 3),
            called("double"),
        ),
        (
            1,
            "src/lib.rs".into(),
            7,
            span("checked_div", DefinitionKind::Function, 5, 10),
            SuspectReason::Frame,
        ),
        (
            2,
            "src/lib.rs".into(),
            1,
            span("double", DefinitionKind::Function, 1, 3),
            called("double"),
        ),
    ];
    assert_eq!(briefs(&case.suspects()), expected);
    assert_eq!(
        case.text(),
        "\
FAIL tests::doubles: assertion `left == right` failed; left: 6; right: 4
at src/lib.rs:18:9
suspect: src/lib.rs:1-3, fn double
 1 | pub fn double(x: i32) -> i32 {
 2 |     x * 3
 3 | }

FAIL tests::divides: division by zero: 4 / 0
at src/lib.rs:7:9
suspect: src/lib.rs:5-10, fn checked_div
  5 | pub fn checked_div(a: i32, b: i32) -> i32 {
  6 |     if b == 0 {
  7 |         panic!(\"division by zero: {a} / {b}\");
  8 |     }
  9 |     a / b
 10 | }

FAIL tests::plain_assert: double(1) should be 2
at src/lib.rs:28:9
suspect: src/lib.rs:1-3, fn double (shown above)"
    );

    // With RUST_BACKTRACE=1 the frames come from the backtrace.
    let backtrace = Case::new("rust_test_backtrace");
    let failures = backtrace.failures();
    let in_workspace: Vec<&Location> = failures[1]
        .frames
        .iter()
        .filter(|f| f.in_workspace())
        .collect();
    assert_eq!(
        in_workspace,
        [
            &at(
                "src/lib.rs",
                22,
                Some(17),
                Some("rs::tests::divides::{{closure}}")
            ),
            &at("src/lib.rs", 23, Some(20), Some("rs::tests::divides")),
            &at("src/lib.rs", 7, Some(9), Some("rs::checked_div")),
        ]
    );
    assert_eq!(failures[1].frames.len(), 7);
    assert_eq!(briefs(&backtrace.suspects()), expected);
}

#[test]
fn gcc_and_make_errors() {
    let gcc = Case::new("gcc");
    assert_eq!(
        gcc.failures(),
        [failure(
            FailureKind::CCompileError,
            None,
            "error: ‘y’ undeclared (first use in this function)",
            Some(at("main.c", 7, Some(20), Some("main"))),
            vec![],
        )]
    );
    assert_eq!(
        briefs(&gcc.suspects()),
        [(
            0,
            "main.c".into(),
            7,
            span("main", DefinitionKind::Function, 4, 9),
            SuspectReason::Reported
        )]
    );

    // `make -k`: both compiler errors; make's `Error 1` lines only follow.
    let make = Case::new("make_gcc");
    let failures = make.failures();
    let messages: Vec<_> = failures.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "error: ‘y’ undeclared (first use in this function)",
            "error: expected ‘;’ before ‘return’"
        ]
    );
    assert_eq!(
        failures[1].location,
        Some(at("util.c", 8, Some(20), Some("clamp")))
    );
    assert!(make.text().contains(
        "BUILD: error: expected ‘;’ before ‘return’\nat util.c:8:20 (in clamp)\nsuspect: util.c:3-10, function clamp\n  3 | int clamp(int value, int low, int high)\n"
    ));

    // The linker's error, located where gcc warned of the implicit call.
    let link = Case::new("make_link");
    assert_eq!(
        link.failures(),
        [failure(
            FailureKind::CCompileError,
            None,
            "undefined reference to `clamp_value' (in function `main')",
            Some(at("main.c", 6, Some(13), Some("main"))),
            vec![],
        )]
    );

    let separator = Case::new("make_separator");
    assert_eq!(
        separator.failures(),
        [failure(
            FailureKind::MakeError,
            None,
            "missing separator. Stop.",
            Some(at("Makefile", 4, None, None)),
            vec![],
        )]
    );
    assert_eq!(
        separator.text(),
        "\
MAKE: missing separator. Stop.
at Makefile:4
suspect: Makefile:1-4, lines around 4
 1 | all: hello
 2 |
 3 | hello:
 4 |     echo hello"
    );
}

#[test]
fn a_traceback_outside_the_workspace_is_never_read() {
    // A real file with a real definition, outside the workspace.
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = elsewhere.path().join("secret.py");
    std::fs::write(&secret, "def leak():\n    raise KeyError('HOME')\n").unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("app.py"), "print(1)\n").unwrap();
    let output = format!(
        "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/runpy.py\", line 198, in _run_module_as_main\n  File \"{}\", line 2, in leak\n    raise KeyError('HOME')\n  File \"../outside.py\", line 1, in up\nKeyError: 'HOME'\n",
        secret.display()
    );
    let failures = parse("python3 -m tool", &output, workspace.path());
    assert_eq!(
        failures,
        [failure(
            FailureKind::PythonTraceback,
            None,
            "KeyError: 'HOME'",
            Some(outside("../outside.py", 1, "up")),
            vec![
                outside("/usr/lib/python3.11/runpy.py", 198, "_run_module_as_main"),
                outside(&secret.display().to_string(), 2, "leak"),
                outside("../outside.py", 1, "up"),
            ],
        )]
    );
    let suspects = locate(workspace.path(), &failures);
    assert_eq!(suspects, []);
    assert_eq!(
        render(&failures, &suspects, BUDGET),
        "ERROR: KeyError: 'HOME'\nat ../outside.py:1 (in up) (outside the workspace)"
    );
}

#[test]
fn a_frame_in_a_file_that_is_gone_keeps_the_failure() {
    let case = Case::new("unittest");
    std::fs::remove_file(case.path().join("calc.py")).unwrap();
    let failures = case.failures();
    let gone = Location {
        place: Place::Missing,
        ..at("calc.py", 13, None, Some("div"))
    };
    assert_eq!(failures[0].location, Some(gone.clone()));
    assert_eq!(failures[0].frames[1], gone);
    // The test's own frame is still there; what it calls is not.
    let suspects = locate(case.path(), &failures);
    assert_eq!(
        briefs(&suspects),
        [
            (
                0,
                "test_calc.py".into(),
                14,
                span("test_div", DefinitionKind::Method, 13, 14),
                SuspectReason::Test
            ),
            (
                1,
                "test_calc.py".into(),
                11,
                span("test_sub", DefinitionKind::Method, 10, 11),
                SuspectReason::Test
            ),
        ]
    );
    assert!(render(&failures, &suspects, BUDGET)
        .starts_with("FAIL test_calc.T.test_div: ZeroDivisionError: division by zero\nat calc.py:13 (in div) (file not found)\n"));
}

#[test]
fn garbage_and_empty_output() {
    let workspace = tempfile::tempdir().unwrap();
    let mut garbage: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    garbage.extend(b"\nlast words\n");
    let text = String::from_utf8_lossy(&garbage);
    let failures = parse("./a.out", &text, workspace.path());
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].kind, FailureKind::Unknown);
    assert!(failures[0].message.ends_with("last words"));
    assert!(failures[0].message.lines().count() <= 50);
    assert_eq!(locate(workspace.path(), &failures), []);
    assert!(render(&failures, &[], 300).starts_with("OUTPUT (no known format), last lines:\n"));
    assert!(render(&failures, &[], 300).chars().count() <= 300);

    // Empty output: nothing to localize (the exit code already says the
    // check failed).
    assert_eq!(parse("./a.out", "", workspace.path()), []);
    assert_eq!(parse("./a.out", "\n  \n", workspace.path()), []);
    assert_eq!(render(&[], &[], 300), "");
}

#[test]
fn a_report_cut_in_the_middle_still_parses() {
    let case = Case::new("unittest");
    // Keep the head and the tail, as the shell tool does.
    let lines: Vec<&str> = case.output.lines().collect();
    let output = format!(
        "{}\n[... 612 bytes cut (1400 bytes in all); the full output was not saved ...]\n{}\n",
        lines[..8].join("\n"),
        lines[13..].join("\n")
    );
    let failures = parse(&case.command, &output, case.path());
    let tests: Vec<_> = failures.iter().map(|f| f.test.as_deref()).collect();
    assert_eq!(
        tests,
        [Some("test_calc.T.test_div"), Some("test_calc.T.test_sub")]
    );
    assert_eq!(failures[0].message, "traceback cut before its exception");
    assert_eq!(failures[1].message, "AssertionError: -2 != 2");
}

#[test]
fn every_fixture_renders_within_its_budget_and_the_same_each_time() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 19);
    for name in names {
        let case = Case::new(&name);
        let failures = case.failures();
        assert!(!failures.is_empty(), "{name}");
        assert!(
            failures.iter().all(|f| f.kind != FailureKind::Unknown),
            "{name}"
        );
        let suspects = case.suspects();
        assert!(!suspects.is_empty(), "{name}");
        // Both can be kept in a run's state.
        let json = serde_json::to_string(&(&failures, &suspects)).unwrap();
        let back: (Vec<Failure>, Vec<Suspect>) = serde_json::from_str(&json).unwrap();
        assert_eq!(back, (failures.clone(), suspects.clone()), "{name}");
        for budget in [80, 400, BUDGET] {
            let text = render(&failures, &suspects, budget);
            assert!(text.chars().count() <= budget, "{name} {budget}:\n{text}");
            assert_eq!(text, render(&failures, &suspects, budget), "{name}");
        }
    }
}

#[test]
fn the_building_blocks_on_a_project() {
    let case = Case::new("pytest");
    let sites = find_definition(case.path(), "total");
    assert_eq!(sites.len(), 1);
    assert_eq!(sites[0].file, "shop/cart.py");
    assert_eq!(
        Some(sites[0].span.clone()),
        span("total", DefinitionKind::Method, 8, 9)
    );
    assert!(!sites[0].in_test);
    let test = std::fs::read_to_string(case.path().join("tests/test_cart.py")).unwrap();
    assert_eq!(called_names(&test, Language::Python, 8), ["total"]);
    assert_eq!(
        enclosing_definition(&test, Language::Python, 8),
        span("test_total", DefinitionKind::Function, 4, 8)
    );
}

/// The same project run live when python3 is here (it must be when
/// `REBOUND_REQUIRE_PYTHON` is set, as on CI): what this python prints
/// (whatever its version) gives the same tests and suspects.
#[test]
fn a_live_unittest_run() {
    let case = Case::new("unittest");
    let Ok(run) = std::process::Command::new("python3")
        .args(["-m", "unittest"])
        .current_dir(case.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
    else {
        assert!(
            std::env::var_os("REBOUND_REQUIRE_PYTHON").is_none(),
            "REBOUND_REQUIRE_PYTHON is set, but python3 is not installed"
        );
        eprintln!("python3 is not installed: skipped");
        return;
    };
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        output.contains("Ran 3 tests"),
        "python3 -m unittest did not run the case's three tests:\n{output}"
    );
    let failures = parse("python3 -m unittest", &output, case.path());
    let tests: Vec<_> = failures.iter().map(|f| f.test.as_deref()).collect();
    assert_eq!(
        tests,
        [Some("test_calc.T.test_div"), Some("test_calc.T.test_sub")]
    );
    let suspects = locate(case.path(), &failures);
    let names: Vec<_> = suspects
        .iter()
        .map(|s| s.span.as_ref().map(|s| s.name.as_str()))
        .collect();
    assert_eq!(names, [Some("div"), Some("sub")]);
}
