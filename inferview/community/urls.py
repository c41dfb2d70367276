from django.urls import path

from . import practice_views, views

app_name = "community"

urlpatterns = [
    path("dashboard/", views.dashboard, name="dashboard"),
    path("bookmarks/", views.bookmark_list, name="bookmarks"),
    path("review/", views.review_list, name="review"),
    path("community/bookmarks/toggle/", views.bookmark_toggle, name="bookmark-toggle"),
    path("community/questions/<int:pk>/practice/", views.practice_save, name="practice"),
    path("community/questions/<int:pk>/rate/", views.review_rate, name="rate"),
    path("community/questions/<int:pk>/progress/", views.progress_set, name="progress"),
    path("community/questions/<int:pk>/difficulty/", views.difficulty_vote, name="difficulty"),
    path(
        "community/questions/<int:pk>/key-points/",
        practice_views.key_points,
        name="key-points",
    ),
    path("practice/questions/<int:pk>/numbers/", practice_views.numbers, name="numbers"),
    path("practice/mock/", practice_views.mock_list, name="mocks"),
    path("practice/mock/<int:pk>/", practice_views.mock_detail, name="mock"),
    path("practice/cram/", practice_views.cram_plan, name="cram"),
    path("community/<str:kind>/<int:pk>/comments/", views.comment_post, name="comment-post"),
    path("community/comments/<int:pk>/edit/", views.comment_edit, name="comment-edit"),
    path("community/comments/<int:pk>/delete/", views.comment_delete, name="comment-delete"),
    path("community/comments/<int:pk>/report/", views.comment_report, name="comment-report"),
]
