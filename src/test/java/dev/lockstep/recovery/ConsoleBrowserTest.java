package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.xa.DatabaseEndpoints;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The DBA console in a real headless Chromium: a DBA logs in through the form (session cookie, CSRF
 * token on every action), sees an orphaned transaction with its evidence and locks, proposes a rollback, is refused as their own approver, and executes it after
 * a second DBA approved, the page refreshing by itself. Screenshots go to target/console-screenshots.
 */
@LockstepIntegrationTest
class ConsoleBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of("target/console-screenshots");

    @Autowired TestDatabases databases;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired Api api;

    WebDriver browser;
    WebDriverWait wait;

    @BeforeAll
    static void browserIsInstalled() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "skipped: no /usr/bin/chromium and /usr/bin/chromedriver here; install them with"
                        + " 'apt-get install chromium chromium-driver' (.ci/run does) to run the console browser test");
    }

    @BeforeEach
    void startBrowser() throws Exception {
        // a fixed driver binary: Selenium Manager must not download anything
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + Files.createTempDirectory("lockstep-chromium"), "--window-size=1700,1300");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterEach
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
        PreparedBranches.rollBackAll(databases.business(), databases.workflow());
    }

    @Test
    void aDbaResolvesAnOrphanWithFourEyesInTheConsole() throws Exception {
        String owner = "node-7.tm";
        String gtrid = PreparedBranches.newGtrid(owner);
        PreparedBranches prepared = new PreparedBranches(endpoints);
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(owner, gtrid));
        prepared.prepareOnWorkflow(PreparedBranches.atomikosXid(owner, gtrid));
        databases.business().update("delete from recovery_intent where gtrid = ?", gtrid);
        databases.business().update("""
                insert into recovery_intent (gtrid, tm_name, use_case, business_key, request_id, user_id, status, recorded_at)
                values (?, ?, 'complete', 'application-4711', 'req-4711', 'manager1', 'PREPARING', now())
                """, gtrid, owner);

        browser.get(api.baseUrl() + "/console/");
        wait.until(ExpectedConditions.urlContains("/console/login.html"));
        browser.findElement(By.id("username")).sendKeys("dba1");
        browser.findElement(By.id("password")).sendKeys(Api.DEMO_PASSWORD);
        browser.findElement(By.id("log-in")).click();
        By row = By.cssSelector("tr[data-gtrid='" + gtrid + "']");
        WebElement transaction = wait.until(ExpectedConditions.visibilityOfElementLocated(row));

        assertThat(transaction.findElement(By.cssSelector("[data-field=class]")).getText()).isEqualTo("ORPHAN");
        assertThat(transaction.getText()).contains("node-7.tm (gone)", "MANUAL");
        assertThat(transaction.findElement(By.cssSelector("[data-field=intent]")).getText())
                .contains("complete application-4711", "req-4711", "manager1");
        assertThat(transaction.findElements(By.cssSelector("[data-field=locks]")).get(0).getText()).contains("application");
        assertThat(transaction.findElement(By.cssSelector("[data-field=evidence]")).getText()).contains("is gone");
        screenshot("console-in-doubt.png");

        click(By.cssSelector("tr[data-gtrid='" + gtrid + "'] button[data-action=propose]"));
        new Select(browser.findElement(By.id("p-action"))).selectByVisibleText("ROLLBACK");
        browser.findElement(By.id("p-reason")).sendKeys("node-7 decommissioned; application-4711 re-submitted by manager1");
        browser.findElement(By.id("p-submit")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Proposed resolution #"));
        long id = databases.business().queryForObject("select max(id) from recovery_resolution where gtrid = ?", Long.class,
                gtrid);

        click(By.cssSelector("tr[data-resolution='" + id + "'] button[data-action=approve]"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "RECOVERY_SAME_APPROVER"));

        assertThat(api.post("dba2", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(200);
        // no reload: the page's own refresh must bring the approval in
        By execute = By.cssSelector("tr[data-resolution='" + id + "'] button[data-action=execute]");
        wait.until(ExpectedConditions.elementToBeClickable(execute));
        screenshot("console-approved.png");
        click(execute);

        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("tr[data-resolution='" + id + "'] [data-field=status]"), "EXECUTED"));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(row));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("audit-verify"), "chain intact"));
        assertThat(databases.preparedTransactions()).isEmpty();
        assertThat(browser.findElement(By.id("audit")).getText()).contains("PROPOSED", "APPROVED", "EXECUTED");
        screenshot("console-resolved.png");
    }

    /**
     * Finds and clicks in one step, again if the console's periodic refresh rebuilt the row in
     * between (a changed row is replaced, so an element found earlier can go stale).
     */
    private void click(By button) {
        wait.ignoring(StaleElementReferenceException.class).until(driver -> {
            WebElement element = driver.findElement(button);
            if (!element.isDisplayed() || !element.isEnabled()) {
                return false;
            }
            element.click();
            return true;
        });
    }

    private void screenshot(String name) throws Exception {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), SCREENSHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }
}
