package dev.lockstep.delivery;

import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * The one place the service builds HTTP clients: each has bounded connect and read timeouts and
 * refuses to run inside a transaction ({@link RemoteCallOutsideTransaction}).
 */
@Component
public class RemoteCalls {

    private final RemoteCallOutsideTransaction outsideTransaction;

    RemoteCalls(RemoteCallOutsideTransaction outsideTransaction) {
        this.outsideTransaction = outsideTransaction;
    }

    public RestClient client(String baseUrl, Duration connectTimeout, Duration readTimeout) {
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
                HttpClient.newBuilder().connectTimeout(connectTimeout).build());
        requests.setReadTimeout(readTimeout);
        return RestClient.builder().baseUrl(baseUrl).requestFactory(requests).requestInterceptor(outsideTransaction).build();
    }
}
