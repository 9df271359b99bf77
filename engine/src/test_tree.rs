//! A file tree for tests: directories, files and symbolic links made under one root.

use std::path::Path;

/// Under `root`: each of `directories` (with its parents), each `(path, contents)` of
/// `files`, and each `(target, name)` of `links` as a symbolic link `name` → `root/target`.
pub(crate) fn make_tree(
    root: &Path,
    directories: &[&str],
    files: &[(&str, &str)],
    links: &[(&str, &str)],
) {
    for directory in directories {
        std::fs::create_dir_all(root.join(directory)).unwrap();
    }
    for (path, contents) in files {
        std::fs::write(root.join(path), contents).unwrap();
    }
    for (target, name) in links {
        std::os::unix::fs::symlink(root.join(target), root.join(name)).unwrap();
    }
}
