//! The loopback HTTP/1.1 core of the mock model APIs the four end-to-end suites run their CLI
//! against: [`read_request`] (a request line, headers, and a body sized by `Content-Length` or
//! sent in chunks), a [`Server`] on `127.0.0.1` only, and a [`MockServer`] that logs every
//! request and hands it to the mock's own answer. The mocks themselves (what each API says)
//! stay with their suites.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// How long a mock accepts connections at most: a safety net if a test never drops it.
pub const LIFETIME: Duration = Duration::from_secs(300);
/// Read/write deadline for one connection.
pub const IO_TIMEOUT: Duration = Duration::from_secs(20);
/// Largest request body a mock reads.
pub const MAX_BODY: usize = 32 << 20;

/// One request as read off the connection.
pub struct Request {
    pub method: String,
    pub path: String,
    /// Names in lower case, values trimmed, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The value of the first header `name` (any case) in `headers`.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Read one request; `None` when the connection closed before one began. A body over
/// `max_body` bytes is an error.
pub fn read_request(reader: &mut impl BufRead, max_body: usize) -> io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let too_big = || io::Error::new(io::ErrorKind::InvalidData, "request body too large");
    if request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    {
        request.body = read_chunked(reader, max_body)?;
    } else if let Some(length) = request
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        if length > max_body {
            return Err(too_big());
        }
        request.body = vec![0; length];
        reader.read_exact(&mut request.body)?;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut impl BufRead, max_body: usize) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size_text = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
        if size == 0 {
            // Trailers, then the blank line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > max_body {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request body too large",
            ));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?; // the CRLF after the chunk
    }
}

/// The path without its query.
pub fn route(path: &str) -> &str {
    path.split('?').next().unwrap_or(path)
}

/// A server on `127.0.0.1` (an ephemeral port, never another interface) that hands each
/// connection to `handle` on its own thread, with read and write timeouts set, until it is
/// dropped or its lifetime runs out (a safety net if a test never drops it).
pub struct Server {
    addr: std::net::SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    acceptor: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn start(
        name: &str,
        lifetime: std::time::Duration,
        io_timeout: std::time::Duration,
        handle: impl Fn(std::net::TcpStream) + Send + Sync + 'static,
    ) -> io::Result<Server> {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::{Duration, Instant};
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handle = Arc::new(handle);
        let acceptor = {
            let stop = Arc::clone(&stop);
            let connection = format!("{name}-conn");
            std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(move || {
                    let deadline = Instant::now() + lifetime;
                    while !stop.load(Ordering::SeqCst) && Instant::now() < deadline {
                        let Ok((stream, _)) = listener.accept() else {
                            std::thread::sleep(Duration::from_millis(5));
                            continue;
                        };
                        let handle = Arc::clone(&handle);
                        // A connection thread is bounded by `io_timeout` on every read and write.
                        let _ =
                            std::thread::Builder::new()
                                .name(connection.clone())
                                .spawn(move || {
                                    let ready = stream.set_nonblocking(false).and_then(|()| {
                                        stream.set_read_timeout(Some(io_timeout))?;
                                        stream.set_write_timeout(Some(io_timeout))
                                    });
                                    if ready.is_ok() {
                                        handle(stream);
                                    }
                                });
                    }
                })?
        };
        Ok(Server {
            addr,
            stop,
            acceptor: Some(acceptor),
        })
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// One request as a mock logged it.
#[derive(Clone, Debug)]
pub struct LoggedRequest {
    pub method: String,
    pub path: String,
    /// Names in lower case, values trimmed, in the order sent.
    pub headers: Vec<(String, String)>,
    /// The body, when it was JSON.
    pub body: Option<Value>,
}

impl LoggedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// `method` on `path` (its query left out).
    pub fn is(&self, method: &str, path: &str) -> bool {
        self.method == method && route(&self.path) == path
    }
}

impl From<Request> for LoggedRequest {
    fn from(request: Request) -> LoggedRequest {
        LoggedRequest {
            body: serde_json::from_slice(&request.body).ok(),
            method: request.method,
            path: request.path,
            headers: request.headers,
        }
    }
}

/// Read one request and log it; `None` when the connection closed before one began.
pub fn read_logged(reader: &mut impl BufRead) -> io::Result<Option<LoggedRequest>> {
    Ok(read_request(reader, MAX_BODY)?.map(LoggedRequest::from))
}

/// A [`Server`] that serves one request per connection: it logs the request, hands it to the
/// mock's `respond` (which writes the whole response, `Connection: close`), then closes the
/// connection — which the CLIs' HTTP clients handle like any other server's.
pub struct MockServer {
    server: Server,
    log: Arc<Mutex<Vec<LoggedRequest>>>,
}

impl MockServer {
    pub fn start(
        name: &str,
        respond: impl Fn(&mut TcpStream, &LoggedRequest) -> io::Result<()> + Send + Sync + 'static,
    ) -> io::Result<MockServer> {
        let log = Arc::new(Mutex::new(Vec::new()));
        let server = {
            let log = Arc::clone(&log);
            Server::start(name, LIFETIME, IO_TIMEOUT, move |stream| {
                let _ = serve_once(stream, &log, &respond);
            })?
        };
        Ok(MockServer { server, log })
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.server.addr()
    }

    /// `http://<addr><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr())
    }

    /// Every request so far, in the order received.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.log.lock().unwrap().clone()
    }
}

fn serve_once(
    stream: TcpStream,
    log: &Mutex<Vec<LoggedRequest>>,
    respond: &impl Fn(&mut TcpStream, &LoggedRequest) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let Some(request) = read_logged(&mut reader)? else {
        return Ok(());
    };
    log.lock().unwrap().push(request.clone());
    let mut out = stream;
    respond(&mut out, &request)?;
    out.flush()?;
    let _ = out.shutdown(Shutdown::Both);
    Ok(())
}

/// Write a whole response: `status` (`200 OK`), the headers, `Content-Length` and
/// `Connection: close`, then `body`.
pub fn write_response(
    out: &mut impl Write,
    status: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    out.write_all(head.as_bytes())?;
    out.write_all(body)
}

/// The text of a tool result as the APIs carry it: a string as is; a list of content parts,
/// their `text`s joined by newlines; anything else as JSON.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// What a CLI sent back to the model for each tool call, by call id: the first answer to each
/// id, in the order first seen. (Each model call repeats the whole conversation so far, so the
/// same answer comes again in every later request.)
pub struct ToolAnswers<T>(Vec<(String, T)>);

impl<T: Clone + std::fmt::Debug> ToolAnswers<T> {
    pub fn collect(answers: impl IntoIterator<Item = (String, T)>) -> ToolAnswers<T> {
        let mut first: Vec<(String, T)> = Vec::new();
        for (id, answer) in answers {
            if !first.iter().any(|(seen, _)| *seen == id) {
                first.push((id, answer));
            }
        }
        ToolAnswers(first)
    }

    /// Every answer, in the order first seen.
    pub fn all(self) -> Vec<T> {
        self.0.into_iter().map(|(_, answer)| answer).collect()
    }

    /// The answer to call `id`; fails the test, listing every answer, when there is none.
    pub fn get(&self, id: &str) -> T {
        self.0
            .iter()
            .find(|(seen, _)| seen == id)
            .map(|(_, answer)| answer.clone())
            .unwrap_or_else(|| panic!("no answer to tool call {id}; got {:#?}", self.0))
    }
}

/// Declares a suite's mock API, `pub struct $name { server: MockServer }`, which derefs to its
/// [`MockServer`] (`addr`, `url`, `requests`).
#[macro_export]
macro_rules! mock_api {
    ($name:ident) => {
        pub struct $name {
            server: $crate::http::MockServer,
        }

        impl std::ops::Deref for $name {
            type Target = $crate::http::MockServer;
            fn deref(&self) -> &$crate::http::MockServer {
                &self.server
            }
        }
    };
}
