# find_package(collrt): libcollrt as installed by `cmake --install`. Links
# with target collrt::collrt (every part of the runtime; static archives).
include(CMakeFindDependencyMacro)
find_dependency(Threads)
find_dependency(nlohmann_json 3.10)
include("${CMAKE_CURRENT_LIST_DIR}/collrtTargets.cmake")
