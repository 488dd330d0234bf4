// expect_ghist_error: a call must throw ghist::error whose message contains `needle` (shared by the host tests).
#pragma once

#include <exception>
#include <string>

#include <gtest/gtest.h>

#include "ghist/error.hpp"

namespace ghist_test {

template <class Call>
void expect_ghist_error(Call&& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "expected ghist::error containing \"" << needle << "\", nothing was thrown";
  } catch (const ghist::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << "message \"" << what << "\" lacks \"" << needle << "\"";
    EXPECT_EQ(what.rfind("ghist: ", 0), 0u) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected ghist::error, got another exception: " << e.what();
  }
}

}  // namespace ghist_test
