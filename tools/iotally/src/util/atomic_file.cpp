// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/util/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "fd.hpp"
#include "iotally/util/error.hpp"

namespace iotally {
namespace {

[[noreturn]] void fail(const std::string& what, int err) {
    throw Error(err == EACCES || err == EPERM ? ErrorKind::permission : ErrorKind::failed,
                fmt::format("{}: {}", what, std::strerror(err)));
}

// Removes the temporary file unless the rename made it the real one.
class TempFile {
  public:
    explicit TempFile(std::string path) : path_(std::move(path)) {}
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() {
        if (!path_.empty())
            ::unlink(path_.c_str());
    }
    const std::string& path() const { return path_; }
    void release() { path_.clear(); }

  private:
    std::string path_;
};

}  // namespace

void write_file_atomically(const std::string& dir, const std::string& name,
                           const std::string& contents) {
    if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
        throw Error(ErrorKind::usage, fmt::format("invalid file name '{}'", name));
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        fail(fmt::format("cannot use directory {}", dir), errno);
    if (!S_ISDIR(st.st_mode))
        throw Error(ErrorKind::usage, fmt::format("{} is not a directory", dir));

    // A dot name: node_exporter only reads *.prom, so it never sees the temp file.
    std::string pattern = fmt::format("{}/.{}.XXXXXX", dir, name);
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    detail::FileDescriptor fd(::mkostemp(buf.data(), O_CLOEXEC));
    if (!fd)
        fail(fmt::format("cannot create a temporary file in {}", dir), errno);
    TempFile temp(buf.data());

    const char* p = contents.data();
    std::size_t left = contents.size();
    while (left) {
        ssize_t n = ::write(fd.get(), p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail(fmt::format("cannot write {}", temp.path()), errno);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fchmod(fd.get(), 0644) != 0)
        fail(fmt::format("cannot chmod {}", temp.path()), errno);
    if (::fsync(fd.get()) != 0)
        fail(fmt::format("cannot sync {}", temp.path()), errno);
    if (fd.close() != 0)
        fail(fmt::format("cannot close {}", temp.path()), errno);
    std::string target = fmt::format("{}/{}", dir, name);
    if (::rename(temp.path().c_str(), target.c_str()) != 0)
        fail(fmt::format("cannot rename to {}", target), errno);
    temp.release();
}

}  // namespace iotally
