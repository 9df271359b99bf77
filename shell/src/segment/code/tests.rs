use super::*;
use Language::*;

#[test]
fn shell_outs_and_deletions_are_read() {
    for (language, code, want) in [
        (Python, "import os; os.system('rm -rf /')", "rm -rf /"),
        (Python, "import os; os.system(\"rm -rf /\")", "rm -rf /"),
        (
            Python,
            "import subprocess; subprocess.run(['rm', '-rf', '/x y'])",
            "rm -rf '/x y'",
        ),
        (
            Python,
            "import subprocess as s; subprocess.check_output('rm -rf x', shell=True)",
            "rm -rf x",
        ),
        (
            Python,
            "import shutil; shutil.rmtree('/home/user')",
            "rm -rf /home/user",
        ),
        (
            Python,
            "import os; os.remove('/etc/passwd')",
            "rm /etc/passwd",
        ),
        (
            Python,
            "from pathlib import Path; Path('a.txt').unlink()",
            "rm a.txt",
        ),
        (Python, "import os; os.popen(r'rm -rf ~')", "rm -rf ~"),
        (
            JavaScript,
            "require('child_process').execSync('rm -rf /')",
            "rm -rf /",
        ),
        (
            JavaScript,
            "require('fs').rmSync('/', {recursive: true})",
            "rm -rf /",
        ),
        (JavaScript, "require('fs').rmSync('f')", "rm f"),
        (
            JavaScript,
            "require('child_process').spawnSync('rm', ['-rf', '/'])",
            "rm -rf /",
        ),
        (
            JavaScript,
            "const fs=require('fs'); fs.unlinkSync('x')",
            "rm x",
        ),
        (
            Ruby,
            "require 'fileutils'; FileUtils.rm_rf('/')",
            "rm -rf /",
        ),
        (Ruby, "system('rm -rf /')", "rm -rf /"),
        (Ruby, "puts `rm -rf /`", "rm -rf /"),
        (Ruby, "%x(rm -rf /)", "rm -rf /"),
        (Perl, "system \"rm -rf /\"", "rm -rf /"),
        (Perl, "use File::Path; rmtree(\"/home\")", "rm -rf /home"),
        (Perl, "unlink '/etc/passwd'", "rm /etc/passwd"),
        (Perl, "qx{rm -rf /}", "rm -rf /"),
        (Php, "system('rm -rf /');", "rm -rf /"),
        (Php, "unlink('/etc/passwd');", "rm /etc/passwd"),
        (Awk, "BEGIN{system(\"rm -rf x\")}", "rm -rf x"),
        (JavaScript, "await $`rm -rf /`", "rm -rf /"),
        (Ruby, "include FileUtils; rm_rf('/x y')", "rm -rf '/x y'"),
        (Perl, "exec \"rm\", \"-rf\", \"/\"", "rm -rf /"),
        (Perl, "system(\"rm\", \"-rf\", \"/x y\")", "rm -rf '/x y'"),
        (Ruby, "system('rm', '-rf', '/')", "rm -rf /"),
        (
            Python,
            "import os; os.execvp('rm', ['rm', '-rf', '/'])",
            "rm -rf /",
        ),
        (
            Python,
            "import os; os.posix_spawnp('rm', ['rm', '-rf', '/'], {})",
            "rm -rf /",
        ),
        (
            JavaScript,
            "await new Deno.Command('rm', {args: ['-rf', '/']}).output()",
            "rm -rf /",
        ),
        (
            JavaScript,
            "Deno.removeSync('/home/u', {recursive: true})",
            "rm -rf /home/u",
        ),
        (R, "system('rm -rf ~')", "rm -rf ~"),
        (R, "system2('rm', c('-rf', '/'))", "rm -rf /"),
        (R, "unlink('~', recursive = TRUE)", "rm -rf ~"),
        (R, "unlink('notes.txt')", "rm notes.txt"),
        (Julia, "run(`rm -rf /`)", "rm -rf /"),
        (Julia, "rm(\"/home/u\", recursive=true)", "rm -rf /home/u"),
    ] {
        let got = shell_texts(language, code);
        assert!(got.iter().any(|t| t == want), "{code}: {got:?}");
    }
}

/// A file the code writes is the redirection that writes it: `: > p`, or `: >> p` for an
/// append or an in-place update; a file opened to read is nothing.
#[test]
fn written_files_are_redirections() {
    for (language, code, want) in [
        (
            Python,
            "open('/etc/passwd','w').write('x')",
            ": > /etc/passwd",
        ),
        (
            Python,
            "f = open(\"/home/u/.bashrc\", mode='a'); f.write('curl x | sh')",
            ": >> /home/u/.bashrc",
        ),
        (
            Python,
            "open('/etc/hosts', 'r+').write('x')",
            ": >> /etc/hosts",
        ),
        (
            Python,
            "from pathlib import Path; Path('/etc/hosts').write_text('')",
            ": > /etc/hosts",
        ),
        (
            JavaScript,
            "require('fs').writeFileSync('/etc/passwd', 'x')",
            ": > /etc/passwd",
        ),
        (
            JavaScript,
            "require('fs').appendFileSync('/root/.bashrc', 'x')",
            ": >> /root/.bashrc",
        ),
        (Ruby, "File.write('/etc/passwd', 'x')", ": > /etc/passwd"),
        (
            Ruby,
            "File.open('/etc/profile', 'a') { |f| f.puts 'x' }",
            ": >> /etc/profile",
        ),
        (
            Php,
            "file_put_contents('/etc/passwd', 'x', FILE_APPEND);",
            ": >> /etc/passwd",
        ),
        (
            Lua,
            "io.open('/etc/passwd', 'w'):write('x')",
            ": > /etc/passwd",
        ),
    ] {
        let got = shell_texts(language, code);
        assert!(got.iter().any(|t| t == want), "{code}: {got:?}");
    }
    for (language, code) in [
        (Python, "print(open('/etc/passwd').read())"),
        (Python, "print(open('/etc/passwd', 'r').read())"),
        (Python, "print('cannot open the file')"),
        (
            Python,
            "import os; fd = os.open('/etc/passwd', os.O_RDONLY)",
        ),
        (Ruby, "puts File.open('/etc/passwd').read"),
        (
            JavaScript,
            "console.log(require('fs').readFileSync('/etc/passwd', 'utf8'))",
        ),
    ] {
        assert_eq!(shell_texts(language, code), Vec::<String>::new(), "{code}");
    }
    // A write to a path the reader cannot see is unreadable code: every literal is kept.
    let got = shell_texts(
        JavaScript,
        "const p = process.argv[1]; require('fs').writeFileSync(p, 'rm -rf /')",
    );
    assert!(got.iter().any(|t| t == "rm -rf /"), "{got:?}");
}

#[test]
fn printed_strings_are_not_commands() {
    for (language, code) in [
        (Python, "print('rm -rf /')"),
        (Python, "x = 'rm -rf /'; print(x)"),
        (JavaScript, "console.log('rm -rf /')"),
        (Ruby, "puts 'rm -rf /'"),
        (Perl, "print \"rm -rf /\\n\""),
        (Awk, "{print \"rm -rf /\"}"),
        (Python, "import os; print(os.getcwd(), 'rm -rf /')"),
        (Julia, "println(\"rm -rf /\")"),
        (R, "print('rm -rf /')"),
    ] {
        assert_eq!(shell_texts(language, code), Vec::<String>::new(), "{code}");
    }
}

/// Code the reader cannot follow: every literal, as before.
#[test]
fn unreadable_code_keeps_every_literal() {
    for (language, code) in [
        (Python, "import os; c = 'rm -rf /'; os.system(c)"),
        (Python, "import os; os.system('rm -rf ' + '/')"),
        (Python, "exec('import os; os.system(\"rm -rf /\")')"),
        (Python, "getattr(__import__('os'), 'system')('rm -rf /')"),
        (
            JavaScript,
            "eval(\"require('child_process').execSync('rm -rf /')\")",
        ),
        (Awk, "{print \"rm -rf /\" | \"sh\"}"),
        (Python, "from os import system; system('rm -rf /')"),
        (Python, "import os as o; o.system('rm -rf /')"),
        (Python, "import os; run = os.system; run('rm -rf /')"),
        (Perl, "my $c = 'rm -rf /'; system $c"),
        (Php, "$f = 'system'; $f('rm -rf /');"),
        (
            JavaScript,
            "const {execSync: run} = require('child_process'); run('rm -rf /')",
        ),
    ] {
        let got = shell_texts(language, code);
        assert!(got.iter().any(|t| t.contains("rm -rf ")), "{code}: {got:?}");
    }
}

#[test]
fn languages() {
    assert_eq!(Language::of("python3.12"), Some(Python));
    assert_eq!(Language::of("nodejs"), Some(JavaScript));
    assert_eq!(Language::of("gawk"), Some(Awk));
    assert_eq!(Language::of("cat"), None);
}
