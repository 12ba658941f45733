//===- DetectLaunchTest.cpp - the launcher conventions --------------------===//
#include "collrt/Bootstrap.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace collrt;

namespace {

struct Env {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const char *name) -> const char * {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

Status detect(const Env &env, LaunchInfo *info) {
  return detectLaunch(env.lookup(), info);
}

void expectError(const Env &env, const std::string &fragment) {
  LaunchInfo info;
  Status s = detect(env, &info);
  EXPECT_EQ(s.code(), ErrorCode::Bootstrap) << s.toString();
  EXPECT_NE(s.message().find(fragment), std::string::npos)
      << "expected '" << fragment << "' in: " << s.message();
}

const std::map<std::string, std::string> kMaster = {{"MASTER_ADDR", "node7"},
                                                    {"MASTER_PORT", "29500"}};

TEST(DetectLaunch, Torchrun) {
  Env env{kMaster};
  env.vars.insert({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}});
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.launcher, "torchrun");
  EXPECT_EQ(info.rank, 5);
  EXPECT_EQ(info.worldSize, 8);
  EXPECT_EQ(info.localRank, 1);
  EXPECT_EQ(info.masterAddr, "node7");
  EXPECT_EQ(info.masterPort, 29500);
}

TEST(DetectLaunch, OpenMpi) {
  Env env{kMaster};
  env.vars.insert({{"OMPI_COMM_WORLD_RANK", "3"},
                   {"OMPI_COMM_WORLD_SIZE", "4"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}});
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.launcher, "mpirun");
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.worldSize, 4);
  EXPECT_EQ(info.localRank, 3);
}

TEST(DetectLaunch, Slurm) {
  Env env{kMaster};
  env.vars.insert(
      {{"SLURM_PROCID", "10"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "2"}});
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.launcher, "slurm");
  EXPECT_EQ(info.rank, 10);
  EXPECT_EQ(info.worldSize, 16);
  EXPECT_EQ(info.localRank, 2);
}

TEST(DetectLaunch, CollcVariablesWinAndOverrideTheMaster) {
  Env env{kMaster};
  env.vars.insert({{"COLLC_RANK", "1"},
                   {"COLLC_WORLD_SIZE", "2"},
                   {"COLLC_LOCAL_RANK", "0"},
                   {"COLLC_MASTER_ADDR", "10.1.2.3"},
                   {"COLLC_MASTER_PORT", "4242"},
                   // A launcher's variables in the same environment lose.
                   {"RANK", "7"},
                   {"WORLD_SIZE", "9"},
                   {"LOCAL_RANK", "3"},
                   {"SLURM_PROCID", "0"},
                   {"SLURM_NTASKS", "1"}});
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.launcher, "collc");
  EXPECT_EQ(info.rank, 1);
  EXPECT_EQ(info.worldSize, 2);
  EXPECT_EQ(info.localRank, 0);
  EXPECT_EQ(info.masterAddr, "10.1.2.3");
  EXPECT_EQ(info.masterPort, 4242);
}

TEST(DetectLaunch, TorchrunBeatsMpiAndSlurm) {
  Env env{kMaster};
  env.vars.insert({{"RANK", "2"},
                   {"WORLD_SIZE", "3"},
                   {"LOCAL_RANK", "0"},
                   {"OMPI_COMM_WORLD_RANK", "0"},
                   {"OMPI_COMM_WORLD_SIZE", "1"},
                   {"SLURM_PROCID", "0"}});
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.launcher, "torchrun");
  EXPECT_EQ(info.rank, 2);
}

TEST(DetectLaunch, NothingSet) {
  expectError(Env{kMaster}, "no launcher environment found: set COLLC_RANK");
}

TEST(DetectLaunch, MissingVariablesAreNamed) {
  Env env{kMaster};
  env.vars.insert({{"RANK", "0"}, {"LOCAL_RANK", "0"}});
  expectError(env, "WORLD_SIZE is not set (RANK is set, so the torchrun "
                   "convention is used");
  env = Env{kMaster};
  env.vars.insert({{"COLLC_WORLD_SIZE", "4"}, {"COLLC_LOCAL_RANK", "0"}});
  expectError(env, "COLLC_RANK is not set");
  env = Env{kMaster};
  env.vars.insert({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}});
  expectError(env, "SLURM_LOCALID is not set");
}

TEST(DetectLaunch, NonNumbersAndRangesAreNamed) {
  Env env{kMaster};
  env.vars.insert({{"RANK", "two"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}});
  expectError(env, "RANK='two' is not an integer");
  env.vars["RANK"] = "1x";
  expectError(env, "RANK='1x' is not an integer");
  env.vars["RANK"] = "4";
  expectError(env, "RANK=4 is not below WORLD_SIZE=4");
  env.vars["RANK"] = "-1";
  expectError(env, "RANK=-1 is outside 0..");
  env.vars["RANK"] = "1";
  env.vars["WORLD_SIZE"] = "0";
  expectError(env, "WORLD_SIZE=0 is outside 1..");
  env.vars["WORLD_SIZE"] = "99999999999999999999";
  expectError(env, "WORLD_SIZE='99999999999999999999' is not an integer");
  env.vars["WORLD_SIZE"] = "4";
  env.vars["LOCAL_RANK"] = "4";
  expectError(env, "LOCAL_RANK=4 is not below WORLD_SIZE=4");
  env.vars["LOCAL_RANK"] = "";
  expectError(env, "LOCAL_RANK='' is not an integer");
}

TEST(DetectLaunch, RendezvousVariables) {
  Env env;
  env.vars = {{"OMPI_COMM_WORLD_RANK", "0"},
              {"OMPI_COMM_WORLD_SIZE", "2"},
              {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}};
  expectError(env, "set COLLC_MASTER_ADDR or MASTER_ADDR");
  expectError(env, "-x MASTER_ADDR=");
  env.vars["MASTER_ADDR"] = "127.0.0.1";
  expectError(env, "set COLLC_MASTER_PORT or MASTER_PORT");
  env.vars["MASTER_PORT"] = "70000";
  expectError(env, "MASTER_PORT=70000 is outside 1..65535");
  env.vars["COLLC_MASTER_PORT"] = "http";
  expectError(env, "COLLC_MASTER_PORT='http' is not an integer");
  env.vars["COLLC_MASTER_PORT"] = "1234";
  env.vars["COLLC_MASTER_ADDR"] = "";
  expectError(env, "COLLC_MASTER_ADDR is empty");
  env.vars.erase("COLLC_MASTER_ADDR");
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.masterAddr, "127.0.0.1");
  EXPECT_EQ(info.masterPort, 1234);
}

} // namespace

TEST(DetectLaunch, HostNameOverride) {
  Env env{kMaster};
  env.vars.insert({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}});
  LaunchInfo info;
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.hostName, ""); // gethostname() at the rendezvous
  env.vars["COLLC_HOST_NAME"] = "node-b";
  ASSERT_TRUE(detect(env, &info).ok());
  EXPECT_EQ(info.hostName, "node-b");
  env.vars["COLLC_HOST_NAME"] = "node b";
  expectError(env, "COLLC_HOST_NAME='node b' must be a non-empty name "
                   "without spaces");
  env.vars["COLLC_HOST_NAME"] = "";
  expectError(env, "COLLC_HOST_NAME='' must be a non-empty name");
}
