# ISA-L's igzip (Debian: libisal-dev): gzip written and read several times faster than zlib.
# Defines the imported target ISAL::isal; find_package(ISAL REQUIRED) stops with the package to
# install when it is missing.
find_path(ISAL_INCLUDE_DIR isa-l/igzip_lib.h)
find_library(ISAL_LIBRARY isal)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ISAL
  REQUIRED_VARS ISAL_LIBRARY ISAL_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install Debian's libisal-dev (scripts/setup.sh does)")
if(ISAL_FOUND AND NOT TARGET ISAL::isal)
  add_library(ISAL::isal UNKNOWN IMPORTED)
  set_target_properties(ISAL::isal PROPERTIES IMPORTED_LOCATION "${ISAL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${ISAL_INCLUDE_DIR}")
endif()
