package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.activiti.engine.RuntimeService;
import org.junit.jupiter.api.AfterEach;
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
    @Autowired RuntimeService runtime;

    WebDriver browser;
    WebDriverWait wait;

    /**
     * Asked before each test, not once before all: Surefire counts an assumption that fails in
     * {@code @BeforeAll} as no test at all ("Tests run: 0, Skipped: 0"), which hides that the console
     * was never tried in a browser; failing here reports each test as skipped, with this reason.
     */
    @BeforeEach
    void startBrowser() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "skipped: no /usr/bin/chromium and /usr/bin/chromedriver here; install them with"
                        + " 'apt-get install chromium chromium-driver' (.ci/run does) to run the console browser test");
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

        logInToTheConsoleAs("dba1");
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
     * A reconciliation incident in the same console: a second run started around the service freezes the
     * application; a DBA reads the evidence, proposes closing it after review, cannot approve their own proposal,
     * and executes and closes it after a second DBA approved; then the application acts again.
     */
    @Test
    void aDbaWorksAReconciliationIncidentWithFourEyesInTheConsole() throws Exception {
        long application = api.post("alice", "/api/applications", """
                {"title": "Console incident", "assetId": 7, "amount": 10, "riskLevel": "LOW", "sensitive": false}
                """).json().get("id").asLong();
        String run = api.post("alice", "/api/applications/" + application + "/submit", null, "console-" + application).json()
                .get("processInstanceId").asString();
        String duplicate = runtime.startProcessInstanceByKey("applicationApproval", Long.toString(application),
                java.util.Map.of("applicantId", "alice", "sensitive", false, "riskLevel", "LOW")).getId();
        databases.business().update("update application set updated_at = updated_at - interval '1 hour' where id = ?", application);
        assertThat(api.post("erin", "/api/admin/reconciliation/runs", "{\"kind\":\"INCREMENTAL\"}").status()).isEqualTo(202);
        long incident = wait.until(driver -> databases.business().queryForList("select id from reconciliation_incident"
                + " where application_id = ? and rule_id = 'TWO_ACTIVE_INSTANCES'", Long.class, application).stream().findFirst()
                .orElse(null));

        logInToTheConsoleAs("dba1");
        By row = By.cssSelector("tr[data-incident='" + incident + "']");
        WebElement shown = wait.until(ExpectedConditions.visibilityOfElementLocated(row));
        assertThat(shown.getText()).contains("TWO_ACTIVE_INSTANCES", "OPEN", "#" + application);
        assertThat(shown.findElement(By.cssSelector("[data-field=evidence]")).getAttribute("textContent")).contains(run, duplicate);
        screenshot("console-incident-open.png");

        new Select(shown.findElement(By.cssSelector("[data-field=fix]"))).selectByVisibleText("CLOSE_WITHOUT_CHANGE");
        shown.findElement(By.cssSelector("[data-field=note]")).sendKeys("duplicate started by a test harness");
        click(By.cssSelector("tr[data-incident='" + incident + "'] button[data-action=propose-fix]"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Incident #" + incident + " is PROPOSED"));
        click(By.cssSelector("tr[data-incident='" + incident + "'] button[data-action=approve-fix]"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "FOUR_EYES_REQUIRED"));

        assertThat(api.post("dba2", "/api/admin/reconciliation/incidents/" + incident + "/approve", null).status()).isEqualTo(200);
        click(By.cssSelector("tr[data-incident='" + incident + "'] button[data-action=execute-fix]"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Incident #" + incident + " is EXECUTED"));
        click(By.cssSelector("tr[data-incident='" + incident + "'] button[data-action=close-incident]"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("tr[data-incident='" + incident + "'] [data-field=state]"), "CLOSED"));
        screenshot("console-incident-closed.png");

        assertThat(databases.business().queryForMap("select state, proposed_by, approved_by, executed_by, closed_by"
                + " from reconciliation_incident where id = ?", incident)).containsEntry("state", "CLOSED")
                .containsEntry("proposed_by", "dba1").containsEntry("approved_by", "dba2").containsEntry("executed_by", "dba1")
                .containsEntry("closed_by", "dba1");
        runtime.deleteProcessInstance(duplicate, "test cleanup: the duplicate of application " + application);
    }

    /** The console sends a browser to its login form; the session that follows carries the CSRF token. */
    private void logInToTheConsoleAs(String user) {
        browser.get(api.baseUrl() + "/console/");
        wait.until(ExpectedConditions.urlContains("/console/login.html"));
        browser.findElement(By.id("username")).sendKeys(user);
        browser.findElement(By.id("password")).sendKeys(Api.DEMO_PASSWORD);
        browser.findElement(By.id("log-in")).click();
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
