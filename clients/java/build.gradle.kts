// dev.mockcdn:mockcdn-junit5: the MockCDN client, JUnit 5 extension and Testcontainers module.
// Users' build; MockCDN's own checks compile and run it with Debian's jars (run-tests.sh).
plugins {
    `java-library`
    `maven-publish`
}

group = "dev.mockcdn"
version = "0.6.0"

java {
    toolchain {
        languageVersion.set(JavaLanguageVersion.of(17))
    }
    withSourcesJar()
}

// The Testcontainers module is a second source folder of the same jar; Testcontainers itself stays optional.
sourceSets {
    main {
        java.srcDir("src/testcontainers/java")
    }
}

repositories {
    mavenCentral()
}

dependencies {
    implementation("com.fasterxml.jackson.core:jackson-databind:2.17.2")
    // Provided by the test suite that uses the extension or the container module.
    compileOnly("org.junit.jupiter:junit-jupiter-api:5.9.2")
    compileOnly("org.testcontainers:testcontainers:1.21.4")

    testImplementation(platform("org.junit:junit-bom:5.9.2"))
    testImplementation("org.junit.jupiter:junit-jupiter")
    testImplementation("org.junit.platform:junit-platform-launcher")
}

tasks.test {
    useJUnitPlatform()
    // The suite runs the real binary: set MOCKCDN_BINARY (or put mockcdn on PATH) before `gradle test`.
    environment("MOCKCDN_FIXTURES", file("../../Fixtures/media").absolutePath)
}

publishing {
    publications {
        create<MavenPublication>("maven") {
            artifactId = "mockcdn-junit5"
            from(components["java"])
        }
    }
}
