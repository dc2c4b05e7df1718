rootProject.name = "mockcdn-junit5"
