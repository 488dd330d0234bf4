// expect_ghist_error: a call must throw ghist::error whose message contains `needle` (shared by the host tests).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "ghist/error.hpp"

namespace ghist_test {

template <class Call>
void expect_ghist_error(Call&& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no error for " << needle;
  } catch (const ghist::error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace ghist_test
