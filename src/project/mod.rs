//! Loading a study from disk: `book.toml`, `content/*.md`, `templates/` and
//! `fonts/`, read into memory once so that every later stage is pure, and
//! `results/*.csv` and `results/*.parquet`, checked and listed, which the
//! results stage reads.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use walkdir::WalkDir;

use crate::config::{self, Config};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

mod commit;
mod datasets;
mod files;
mod git_log;

pub use commit::Commit;
pub use datasets::{DatasetScan, FileRead, files as dataset_files, unchanged};
pub use git_log::first_parent;

pub use files::{describe_kind, open_regular, read, read_regular, regular_file, slashed};
use files::{list_results, read_dir, read_optional};

/// A file read from the study, with its path relative to the study root.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the study root, such as `results/lammps.csv`.
    pub path: PathBuf,
    /// Raw content; CSVs are checked for UTF-8 by the results stage. Empty
    /// for a file left on disk ([`SourceFile::disk`]).
    pub bytes: Vec<u8>,
    /// The absolute path of a file left on disk to be streamed by the stage
    /// that reads it (results files, which can be large); `None` when
    /// `bytes` holds the content.
    pub disk: Option<PathBuf>,
    /// SHA-256 of the content in hex, computed once: by the results stage as
    /// it streams a file on disk, or when first asked for.
    pub hash: std::sync::OnceLock<String>,
    /// For a partitioned dataset, what the results stage read of it.
    pub scan: std::sync::OnceLock<DatasetScan>,
}

impl SourceFile {
    /// The content as text, or a diagnostic at the first invalid byte.
    pub fn text(&self) -> Result<&str, Diagnostic> {
        std::str::from_utf8(&self.bytes).map_err(|err| {
            let valid = &self.bytes[..err.valid_up_to()];
            let text = std::str::from_utf8(valid).unwrap_or_default();
            Diagnostic::new(
                Location::at_offset(&self.path, text, text.len()),
                "file is not valid UTF-8",
            )
            .hint("save the file as UTF-8")
        })
    }

    /// The SHA-256 of the content, in hex (computed once; for a file on disk,
    /// by the stage that streams it, or else by reading it here).
    pub fn sha256(&self) -> &str {
        self.hash.get_or_init(|| {
            use sha2::{Digest, Sha256};
            let mut hasher = Sha256::new();
            match self.open() {
                Ok(mut reader) => {
                    std::io::copy(&mut reader, &mut hasher).ok();
                }
                Err(_) => hasher.update(b""),
            }
            hex(&hasher.finalize())
        })
    }

    /// A reader over the content: the bytes in memory, or the file on disk.
    pub fn open(&self) -> std::io::Result<Box<dyn std::io::Read + Send + '_>> {
        match &self.disk {
            Some(path) => Ok(Box::new(open_regular(path)?)),
            None => Ok(Box::new(self.bytes.as_slice())),
        }
    }

    /// The size of the content in bytes (for a file on disk, as it is now).
    pub fn len(&self) -> u64 {
        match &self.disk {
            Some(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            None => self.bytes.len() as u64,
        }
    }

    /// True for empty content.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A file with `path` and `bytes`.
    pub fn new(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Self {
        SourceFile {
            path: path.into(),
            bytes,
            disk: None,
            hash: std::sync::OnceLock::new(),
            scan: std::sync::OnceLock::new(),
        }
    }

    /// A file at `path` (relative to the study root) left on disk at `full`,
    /// to be streamed when read.
    pub fn on_disk(path: impl Into<PathBuf>, full: PathBuf) -> Self {
        SourceFile { disk: Some(full), ..Self::new(path, Vec::new()) }
    }

    /// `diagnostics`, each at a line of this file, given the excerpt of its
    /// source line.
    pub fn attach(&self, mut diagnostics: Diagnostics) -> Diagnostics {
        diagnostics.attach(&self.path, &self.bytes);
        diagnostics
    }

    /// The file name without its extension.
    pub fn stem(&self) -> String {
        self.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// Lowercase hexadecimal digits of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex(&Sha256::digest(bytes))
}

/// Everything a build reads, in memory.
#[derive(Debug, Clone)]
pub struct Project {
    /// The study root folder.
    pub root: PathBuf,
    /// The parsed `book.toml`.
    pub config: Config,
    /// `book.toml` as read, for the manifest.
    pub book: SourceFile,
    /// `results/*.csv` and `results/*.parquet`, sorted by path.
    pub results: Vec<SourceFile>,
    /// `content/*.md`, sorted by path.
    pub content: Vec<SourceFile>,
    /// Files of `templates/` that override built-in ones: `*.html` (Tera),
    /// `style.css` and `app.js`.
    pub templates: Vec<SourceFile>,
    /// `content/references.bib`, when the study cites anything.
    pub bibliography: Option<SourceFile>,
    /// Images in `content/` (png, jpg, gif, svg, webp), sorted by name, copied
    /// to the site and embedded in the paper.
    pub assets: Vec<SourceFile>,
    /// Font files of `fonts/` (ttf, otf, ttc) for the paper, sorted by path.
    pub fonts: Vec<SourceFile>,
    /// The commit the study was built from, and whether its inputs in the
    /// tree differ from it, when the study is in a git repository.
    pub commit: Option<Commit>,
    /// Warnings for files of `results/` a build does not read (JSON, raw
    /// output, spreadsheets), each with why and what reads it.
    pub unread: Vec<Diagnostic>,
    /// Its place in a site of studies, when built as one (`report build
    /// --root FOLDER` of a site.toml): where its links to other studies lead.
    pub site: Option<std::sync::Arc<crate::site::place::Place>>,
}

/// The study's input folders (besides `book.toml`): a build reads them, `report
/// serve` watches them, and no output folder may lie inside one.
pub const INPUT_FOLDERS: [&str; 4] = ["content", "results", "templates", "fonts"];

/// File extensions of the font files a study may add in `fonts/`.
pub const FONT_EXTENSIONS: [&str; 3] = ["ttf", "otf", "ttc"];

/// File extensions of images that content may embed.
pub const IMAGE_EXTENSIONS: [&str; 6] = ["png", "jpg", "jpeg", "gif", "svg", "webp"];

/// Read the study at `root`.
pub fn load(root: &Path) -> Result<Project> {
    let root = dunce::canonicalize(root)
        .with_context(|| format!("cannot open study folder `{}`", root.display()))?;
    let book_path = Path::new("book.toml");
    let Some(book) = read_optional(&root, "book.toml")? else {
        return Err(Diagnostics::from(
            Diagnostic::new(Location::file(root.join(book_path)), "no book.toml in the study folder")
                .hint("run `report` in a study folder, pass `--root DIR`, or create one with `report new DIR`"),
        )
        .into());
    };
    let sourced = |diagnostics: Diagnostics| book.attach(diagnostics);
    let text = book.text().map_err(|d| sourced(d.into()))?;
    let mut config = config::parse(book_path, text).map_err(sourced)?;
    git_log::fill(&root, &mut config).map_err(sourced)?;
    let book = book.clone();
    let results = list_results(&root)?;
    check_results_size(&results, config.output.max_results_mb)?;
    let content = without_bom(read_dir(&root, "content", &["md"])?);
    Ok(Project {
        results,
        content,
        templates: read_templates(&root)?,
        bibliography: read_optional(&root, "content/references.bib")?,
        assets: read_dir(&root, "content", &IMAGE_EXTENSIONS)?,
        fonts: read_dir(&root, "fonts", &FONT_EXTENSIONS)?,
        commit: commit::of(&root),
        unread: files::unread_results(&root),
        site: None,
        config,
        book,
        root,
    })
}

/// `files` without the UTF-8 byte order mark an editor may put first
/// (Notepad does): it is no character of the page, and the paper's PDF/UA
/// checks refuse U+FEFF in the text.
fn without_bom(mut files: Vec<SourceFile>) -> Vec<SourceFile> {
    for file in &mut files {
        if file.bytes.starts_with(b"\xEF\xBB\xBF") {
            file.bytes.drain(..3);
        }
    }
    files
}

/// Refuse to read more results than `[output] max-results-mb`, before
/// reading any: the error is at the largest results file.
fn check_results_size(results: &[SourceFile], limit_mb: u64) -> Result<()> {
    let total: u64 = results.iter().map(SourceFile::len).sum();
    let Some(largest) = results.iter().max_by_key(|f| (f.len(), std::cmp::Reverse(&f.path))) else {
        return Ok(());
    };
    if total <= limit_mb.saturating_mul(1024 * 1024) {
        return Ok(());
    }
    let mb = |bytes: u64| bytes.div_ceil(1024 * 1024);
    let message = format!(
        "the results files hold {} MB, this one {} MB; a build reads at most {limit_mb} MB",
        mb(total),
        mb(largest.len())
    );
    let hint = "a build holds the results in memory: aggregate or sample them in an engine \
        such as DuckDB or Spark to one row per run of the configurations the study compares, \
        and hand the result over as Parquet (docs/big-results.md); or, with the memory for it \
        (about three bytes per byte of CSV), raise `max-results-mb` under [output] in book.toml";
    Err(Diagnostics::from(Diagnostic::new(Location::file(&largest.path), message).hint(hint))
        .into())
}

/// The study's template overrides: every file under `templates/` but its README.
fn read_templates(root: &Path) -> Result<Vec<SourceFile>> {
    let folder = root.join("templates");
    let mut files = Vec::new();
    if !folder.is_dir() {
        return Ok(files);
    }
    for entry in WalkDir::new(&folder).min_depth(1).max_depth(3).sort_by_file_name() {
        let entry = entry.context("cannot list `templates/`")?;
        let path = entry.path();
        let wanted = path.extension().is_some_and(|e| e == "html" || e == "typ")
            || path.file_name().is_some_and(|n| n == "style.css" || n == "app.js");
        if !entry.file_type().is_dir() && wanted {
            files.push(read(root, &slashed(path.strip_prefix(root).unwrap_or(path)))?);
        }
    }
    Ok(files)
}

impl Project {
    /// Whether `folder`, as a link of the content writes it (`examples/NAME/`,
    /// `../`), is another study of the site: a folder of the study's root
    /// that holds a book.toml. Only whether that book.toml is a file is
    /// asked; nothing of it is read. The markdown stage asks it of the links
    /// its one parse of each page finds.
    pub fn is_study(&self, folder: &str) -> bool {
        let target = folder.split(['#', '?']).next().unwrap_or_default();
        let relative = target.ends_with('/') && !target.contains(':') && !target.starts_with('/');
        relative && self.root.join(target).join("book.toml").is_file()
    }

    /// `diagnostics`, each at a line of a file of the study held in memory
    /// given the excerpt of its source line (those of results files have
    /// theirs from the results stage, which reads them).
    pub fn attach(&self, mut diagnostics: Diagnostics) -> Diagnostics {
        self.attach_to(&mut diagnostics.0);
        diagnostics
    }

    /// [`Project::attach`] on any diagnostics, warnings among them.
    pub fn attach_to(&self, diagnostics: &mut [Diagnostic]) {
        for file in self.inputs().into_iter().filter(|f| f.disk.is_none()) {
            crate::diagnostic::attach(diagnostics, &file.path, &file.bytes);
        }
    }

    /// Every input file, in a stable order: book.toml, results, content,
    /// images, bibliography, templates, fonts.
    pub fn inputs(&self) -> Vec<&SourceFile> {
        let mut all = vec![&self.book];
        all.extend(&self.results);
        all.extend(&self.content);
        all.extend(&self.assets);
        all.extend(&self.bibliography);
        all.extend(&self.templates);
        all.extend(&self.fonts);
        all
    }

    /// Read `content/` again (pages, images, bibliography), after an edit there.
    pub fn reload_content(&mut self) -> Result<()> {
        self.content = read_dir(&self.root, "content", &["md"])?;
        self.bibliography = read_optional(&self.root, "content/references.bib")?;
        self.assets = read_dir(&self.root, "content", &IMAGE_EXTENSIONS)?;
        self.commit = commit::of(&self.root);
        Ok(())
    }

    /// Read `results/` again, after a results file changed.
    pub fn reload_results(&mut self) -> Result<()> {
        self.results = list_results(&self.root)?;
        self.commit = commit::of(&self.root);
        Ok(())
    }
}
