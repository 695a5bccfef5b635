//! The options a command runs with: its own, else those written before it
//! (`report --root DIR build`, as earlier versions took them), refusing
//! those it has no use for; and whether to colour the output.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::CommandFactory;
use report::diagnostic::render::Format;

use super::Cli;
use super::args::{Args, ColorWhen, Command, Printing, Style};

/// The options a command takes; `None` for each it has no use for.
struct Own {
    name: &'static str,
    root: Option<Option<PathBuf>>,
    quiet: Option<bool>,
    verbose: Option<bool>,
    style: Option<Style>,
}

impl Own {
    fn of(command: &Command) -> Own {
        let none = |name| Own { name, root: None, quiet: None, verbose: None, style: None };
        let with = |name, root: &Option<PathBuf>, p: &Printing| Own {
            root: Some(root.clone()),
            quiet: Some(p.quiet),
            style: Some(p.style),
            ..none(name)
        };
        match command {
            Command::New { printing, .. } => Own { root: None, ..with("new", &None, printing) },
            Command::Build { study, verbose, printing, .. } => {
                Own { verbose: Some(*verbose), ..with("build", &study.root, printing) }
            }
            Command::Check { study, format, printing } => {
                let mut own = with("check", &study.root, printing);
                own.style = Some(Style {
                    message_format: format.or(printing.style.message_format),
                    ..printing.style
                });
                own
            }
            Command::Serve { study, printing, .. } => with("serve", &study.root, printing),
            Command::Typst { study, printing, .. } => with("typst", &study.root, printing),
            Command::Export { study, printing, .. } => with("export", &study.root, printing),
            Command::Diff { root, style, .. } => {
                Own { root: Some(root.clone()), style: Some(*style), ..none("diff") }
            }
            Command::Import { root, quiet, verbose, message_format, color, .. } => Own {
                root: Some(root.clone()),
                quiet: Some(*quiet),
                verbose: Some(*verbose),
                style: Some(Style { message_format: *message_format, color: *color }),
                ..none("import")
            },
            Command::Completions { .. } => none("completions"),
            Command::Man { .. } => none("man"),
        }
    }
}

/// The options of `args.command`: its own, else those written before it. An
/// option before a command that has no use for it is a usage error (exit 2).
pub fn resolve(args: &Args) -> Result<Cli, clap::Error> {
    let (before, own) = (&args.before, Own::of(&args.command));
    let refuse = |option: &str| {
        Args::command().error(
            clap::error::ErrorKind::ArgumentConflict,
            format!("`report {}` has no {option}; see `report {} --help`", own.name, own.name),
        )
    };
    let given_style = before.message_format.is_some() || before.color.is_some();
    for (given, taken, option) in [
        (before.root.is_some(), own.root.is_some(), "--root"),
        (before.quiet, own.quiet.is_some(), "--quiet"),
        (before.verbose, own.verbose.is_some(), "--verbose"),
        (given_style, own.style.is_some(), "--message-format or --color"),
    ] {
        if given && !taken {
            return Err(refuse(option));
        }
    }
    let quiet = own.quiet.unwrap_or(false) || before.quiet;
    let verbose = own.verbose.unwrap_or(false) || before.verbose;
    if quiet && verbose {
        return Err(refuse("--quiet together with --verbose"));
    }
    let style = own.style.unwrap_or(Style { message_format: None, color: None });
    let format = style.message_format.or(before.message_format).unwrap_or_default();
    let when = style.color.or(before.color).unwrap_or(ColorWhen::Auto);
    let root = own.root.flatten().or_else(|| before.root.clone()).unwrap_or_else(|| ".".into());
    let color = format == Format::Human && colour(when, std::io::stderr().is_terminal());
    Ok(Cli { root, quiet, verbose, format, color })
}

/// The build date from `SOURCE_DATE_EPOCH`, for reproducible output.
pub fn epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse().ok())
}

/// Whether to colour: `always`, `never`, or, for `auto`, on a terminal
/// unless NO_COLOR is set to something (no-color.org).
pub fn colour(when: ColorWhen, terminal: bool) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// clap's own colours (help, usage errors) for the `--color` among `args`,
/// read before they are parsed; clap itself honours NO_COLOR.
pub fn clap_colour(args: &[std::ffi::OsString]) -> clap::ColorChoice {
    let mut words = args.iter().map(|a| a.to_string_lossy());
    let mut when = None;
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        } else if let Some(value) = word.strip_prefix("--color=") {
            when = Some(value.to_string());
        } else if word == "--color" {
            when = words.next().map(|w| w.to_string());
        }
    }
    match when.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn resolved(line: &[&str]) -> Result<Cli, clap::Error> {
        resolve(&Args::try_parse_from(line)?)
    }

    #[test]
    fn options_before_the_command_count_where_it_takes_them() {
        let cli = resolved(&["report", "--root", "s", "-q", "build"]).unwrap();
        assert_eq!((cli.root, cli.quiet), (PathBuf::from("s"), true));
        let cli = resolved(&["report", "--root", "a", "build", "--root", "b"]).unwrap();
        assert_eq!(cli.root, PathBuf::from("b"), "the command's own first");
        let cli = resolved(&["report", "import", "lammps", "x.log", "--root", "s", "-v"]).unwrap();
        assert_eq!((cli.root, cli.verbose), (PathBuf::from("s"), true));
        let cli = resolved(&["report", "check", "--format", "json"]).unwrap();
        assert_eq!((cli.root, cli.format), (PathBuf::from("."), Format::Json));
    }

    #[test]
    fn options_a_command_has_no_use_for_are_refused() {
        for line in [
            &["report", "--root", "s", "new", "d"][..],
            &["report", "new", "d", "--root", "s"],
            &["report", "-v", "serve"],
            &["report", "-q", "completions", "bash"],
            &["report", "--color", "never", "man"],
            &["report", "build", "-q", "-v"],
            &["report", "-q", "build", "-v"],
        ] {
            let err = resolved(line).map(|_| ()).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{line:?}: {err}");
        }
    }

    #[test]
    fn colour_follows_the_flag_then_no_color_then_the_terminal() {
        assert!(colour(ColorWhen::Always, false));
        assert!(!colour(ColorWhen::Never, true));
        assert!(!colour(ColorWhen::Auto, false));
        let words = |line: &str| line.split(' ').map(Into::into).collect::<Vec<_>>();
        assert_eq!(clap_colour(&words("report --color never build")), clap::ColorChoice::Never);
        assert_eq!(clap_colour(&words("report build --color=always")), clap::ColorChoice::Always);
        assert_eq!(clap_colour(&words("report build -- --color never")), clap::ColorChoice::Auto);
    }
}
