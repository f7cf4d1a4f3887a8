#include "xlite/base/file_io.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "gtest/gtest.h"

namespace xlite {
namespace {

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/xlite_file_io_XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    dir_ = folder;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  std::string Read(const std::string& path) {
    absl::StatusOr<std::string> text = ReadBinaryFile(path);
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "";
  }
  // The names in dir_ (to see that no temporary file is left).
  std::string Listing() {
    std::string out;
    FILE* ls = popen(("ls -A " + dir_).c_str(), "r");
    char line[256];
    while (fgets(line, sizeof(line), ls) != nullptr) out += line;
    pclose(ls);
    return out;
  }

  std::string dir_;
};

TEST_F(FileIoTest, WritesAndReplacesKeepingThePermissions) {
  const std::string path = dir_ + "/out.txt";
  ASSERT_TRUE(WriteBinaryFile(path, "first").ok());
  chmod(path.c_str(), 0640);
  ASSERT_TRUE(WriteBinaryFile(path, std::string("second\0byte", 11)).ok());
  EXPECT_EQ(Read(path), std::string("second\0byte", 11));
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  EXPECT_EQ(Listing(), "out.txt\n");
}

TEST_F(FileIoTest, AFailedWriteLeavesTheOldFile) {
  const std::string path = dir_ + "/kept.txt";
  ASSERT_TRUE(WriteBinaryFile(path, "old contents").ok());
  // A file-size limit of 4 KiB: writing 64 KiB fails with EFBIG midway.
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit saved;
  getrlimit(RLIMIT_FSIZE, &saved);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  setrlimit(RLIMIT_FSIZE, &small);
  absl::Status written = WriteBinaryFile(path, std::string(1 << 16, 'x'));
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(std::string(written.message()).find("kept.txt: cannot write file"), std::string::npos)
      << written;
  EXPECT_EQ(Read(path), "old contents");
  EXPECT_EQ(Listing(), "kept.txt\n");
}

TEST_F(FileIoTest, ASymbolicLinkKeepsPointingAtTheNewContents) {
  const std::string target = dir_ + "/target.txt";
  const std::string link = dir_ + "/link.txt";
  ASSERT_TRUE(WriteBinaryFile(target, "old").ok());
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  ASSERT_TRUE(WriteBinaryFile(link, "new").ok());
  struct stat info;
  ASSERT_EQ(lstat(link.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_EQ(Read(target), "new");
}

TEST_F(FileIoTest, DevicesAreWrittenInPlace) {
  ASSERT_TRUE(WriteBinaryFile("/dev/null", "discarded").ok());
  struct stat info;
  ASSERT_EQ(stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST_F(FileIoTest, MissingFolderAndFileAreErrorsNamingThePath) {
  absl::Status written = WriteBinaryFile(dir_ + "/no/such/folder/f", "x");
  EXPECT_NE(std::string(written.message()).find("f: cannot create file"), std::string::npos);
  absl::StatusOr<std::string> read = ReadBinaryFile(dir_ + "/absent");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(std::string(read.status().message()).find("absent: cannot open file"),
            std::string::npos);
}

TEST_F(FileIoTest, StreamsStopAtTheLimit) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  ASSERT_EQ(write(pipe_fds[1], "0123456789", 10), 10);
  close(pipe_fds[1]);
  absl::StatusOr<std::string> text = ReadStream(pipe_fds[0], /*limit=*/4);
  close(pipe_fds[0]);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(std::string(text.status().message()).find("from a stream"), std::string::npos);

  int zero = open("/dev/zero", O_RDONLY);
  ASSERT_GE(zero, 0);
  text = ReadStream(zero, /*limit=*/1 << 20);
  close(zero);
  EXPECT_FALSE(text.ok());
}

}  // namespace
}  // namespace xlite
